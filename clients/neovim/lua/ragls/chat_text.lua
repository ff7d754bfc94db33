---@mod ragls.chat_text The text of a |:RagChat| thread: each turn's `## question`, the searched-for line, the
--- answer (or "_…_" while it streams, a note when stopped or failed), its sources (cited, then the others) and
--- footer, with the maps from line to turn and to source the chat buffer's keys read. Pure text from PROTOCOL values
--- (|ragls.answer_text| for each part): no windows, no server. |ragls.chat| draws it.

local answer_text = require("ragls.answer_text")
local ui = require("ragls.ui")

local M = {}

local function split_lines(text)
  return vim.split(text, "\r?\n")
end

--- Lines of a thread of `turns`, and the maps from line to turn / source. `earlier`: how many earlier threads the
--- session keeps (|:RagChat| list), named in an empty thread's hint.
---@param turns ragls.ChatTurn[]
---@param earlier integer
---@return string[] lines
---@return table<integer, integer> line_turn
---@return table<integer, table> line_source
---@return table<integer, integer> heading_line
function M.thread_lines(turns, earlier)
  local lines, line_turn, line_source, heading_line = {}, {}, {}, {}
  if #turns == 0 then
    local hint = { "# ragls chat", "", "_Ask a question: press <CR> here, or :RagAsk {question}._" }
    if earlier > 0 then
      table.insert(hint, ("_:RagChat list continues one of your %d earlier chats._"):format(earlier))
    end
    return hint, {}, {}, {}
  end
  for i, turn in ipairs(turns) do
    if i > 1 then
      table.insert(lines, "")
    end
    table.insert(lines, "## " .. turn.question)
    heading_line[i] = #lines
    local r = turn.result
    local searched = answer_text.searched_line(turn.question, r) -- "" when searched as asked
    if searched ~= "" then
      table.insert(lines, searched)
    end
    table.insert(lines, "")
    if r then
      vim.list_extend(lines, ui.error_lines(r, "`r` on this turn asks it again"))
    end
    local body = r and answer_text.answer_body(r) or vim.trim(turn.text)
    if body == "" and turn.status == "streaming" then
      body = turn.pending or "_…_" -- what it waits for (answer_float.pending_line, kept fresh by chat.ask)
    end
    for _, l in ipairs(body ~= "" and split_lines(body) or {}) do
      table.insert(lines, l)
      line_turn[#lines] = i
    end
    local gap = body ~= "" and { "" } or {} -- (a turn stopped or failed before any text: no second blank line)
    if turn.status == "cancelled" then
      vim.list_extend(lines, vim.list_extend(gap, { "_(stopped)_" }))
    elseif turn.status == "error" then
      vim.list_extend(lines, vim.list_extend(gap, { "**Error:** " .. (turn.error or "request failed"),
        "_`r` asks it again_" }))
    end
    if r and r.sources and #r.sources > 0 then
      -- the cited sources, then those the answer was written from but does not cite (as the :RagAsk float)
      local cited, uncited = answer_text.cited_sources(r)
      for _, group in ipairs({ { ui.sources_heading(r), cited }, { answer_text.UNCITED_HEADING, uncited } }) do
        if #group[2] > 0 then
          vim.list_extend(lines, { "", group[1] })
        end
        for _, entry in ipairs(ui.source_entries(r, group[2])) do
          table.insert(lines, entry.text)
          line_source[#lines] = entry.source
          line_turn[#lines] = i
        end
      end
    end
    if r then
      vim.list_extend(lines, { "", ui.footer(r) })
    end
  end
  return lines, line_turn, line_source, heading_line
end

return M
