---@mod ragls.code_wrap An answer laid out for its window (code lines, citations); yanked as the answer has it.
---
--- The answer float and |:RagChat| wrap at words ('linebreak'), so a code line wider than the window broke wherever
--- its row ended when one of its tokens was wider than the room left: "app.config.from_object('y" / "ourapplication.
--- default_settings')" in the chat's 50-column split ('breakat' cannot take "(" or "." without breaking prose there,
--- and it is global; inline virtual text is no break opportunity). Such a line is now broken in the buffer itself,
--- at a space, or in a word too wide for a part after a "(", "[", "{" or ",", or before the "." of a name, never
--- inside a quoted string, its next parts under its start with a hanging indent of 4 (PEP 8's), as VS Code's chat
--- view breaks code (`codeBreaks`). A yank that covers the breaks gets the line as the answer has it (|TextYankPost|:
--- each part's hanging indent taken off, the parts joined), as `Y` does. And a citation stays on the row of the word
--- before it (|M.glue_citations|).
---
--- Pure rendering: this module never talks to the server.

local M = {}

--- Columns of hanging indent under a broken code line's start.
M.HANG = 4

-- buffer -> { [line number of a part after the first] = bytes of hanging indent to take off when joined }
local joins_of = {}

--- Whether `line` opens or closes a fenced code block ("```" or "~~~", indented or not, with an info string).
---@param line string
---@return boolean
local function fence(line)
  return line:match("^%s*```") ~= nil or line:match("^%s*~~~") ~= nil
end

--- The set of the indexes of `lines` inside fenced code blocks (the fence lines themselves not included).
---@param lines string[]
---@return table<integer, true>
function M.code_lines(lines)
  local inside, code = false, {}
  for i, line in ipairs(lines) do
    if fence(line) then
      inside = not inside
    elseif inside then
      code[i] = true
    end
  end
  return code
end

--- For each character of `chars`: whether it is in a word (a run without spaces) wider than `fit` columns.
---@param chars string[]
---@param fit integer
---@return boolean[]
local function in_long_word(chars, fit)
  local long, start, width = {}, 1, 0
  for i = 1, #chars + 1 do
    local ch = chars[i]
    if ch == nil or ch:match("^%s$") then
      for j = start, i - 1 do
        long[j] = width > fit
      end
      start, width = i + 1, 0
    else
      width = width + vim.fn.strdisplaywidth(ch)
    end
  end
  return long
end

--- The byte length of the longest head of `text` at most `room` columns wide that ends where code may break:
--- after a space; in a word wider than `fit` columns (it fits no part) also after "(", "[", "{" or ",", or before a
--- "." of a name ("app" / ".config"), never inside a quoted string ('yourapplication.default_settings' stays whole)
--- — a shorter word goes to the next part whole ("load=json.load)", not "load=json." / "load)"); and longer than
--- `least` bytes (a part holds more than its indent). Without one, the longest head that fits (a name wider than
--- the room: broken inside, as the window did).
---@param text string
---@param room integer
---@param least integer
---@param fit integer
---@return integer
local function cut(text, room, least, fit)
  local chars = vim.fn.split(text, [[\zs]])
  local long = in_long_word(chars, fit)
  local width, bytes, best, fits, quote = 0, 0, nil, 0, nil
  for i, ch in ipairs(chars) do
    width = width + vim.fn.strdisplaywidth(ch)
    if width > room then
      break
    end
    bytes = bytes + #ch
    fits = bytes
    if quote then -- inside a string: its closing quote (not an escaped one) ends it
      quote = not (ch == quote and chars[i - 1] ~= "\\") and quote or nil
    elseif ch:match("[\"'`]") then
      quote = ch
    else
      local nxt = chars[i + 1]
      local inner = long[i] and (ch:match("[%(%[{,]") or (nxt == "." and ch:match("[%w_%)%]]")))
      if bytes > least and nxt and (ch == " " or inner) then
        best = bytes
      end
    end
  end
  return best or math.max(fits, 1)
end

--- `line` in parts at most `width` columns wide (|cut|), every part after the first under the line's indent plus
--- |M.HANG| columns (the line's indent alone when that would take half the width); { line } when it fits.
--- Returns the parts and the bytes of indent each part after the first begins with.
---@param line string
---@param width integer
---@return string[] parts
---@return integer hang
function M.split(line, width)
  if vim.fn.strdisplaywidth(line) <= width then
    return { line }, 0
  end
  local lead = line:match("^%s*")
  local prefix = lead .. (" "):rep(M.HANG)
  if vim.fn.strdisplaywidth(prefix) * 2 > width then
    prefix = lead
  end
  if vim.fn.strdisplaywidth(prefix) * 2 > width then
    return { line }, 0 -- no room to speak of: the window wraps it
  end
  local parts, rest, head = {}, line, ""
  while vim.fn.strdisplaywidth(head .. rest) > width do
    local n = cut(rest, width - vim.fn.strdisplaywidth(head), head == "" and #lead or 0,
      width - vim.fn.strdisplaywidth(prefix))
    table.insert(parts, head .. rest:sub(1, n))
    rest, head = rest:sub(n + 1), prefix
  end
  table.insert(parts, head .. rest)
  return parts, #prefix
end

--- A no-break space (U+00A0), which 'linebreak' never breaks at ('breakat' holds ASCII characters only).
M.NBSP = "\194\160"

--- `line` with the space between a word and a citation ("prefix [1].") a no-break one (|M.NBSP|): the window wrapped
--- there and "[1]." stood alone on the next row, as VS Code's side bar did (its HTML glues them the same way). A
--- yank gives the space back (|M.track|); `Y` yanks the answer's markdown.
---@param line string
---@return string
function M.glue_citations(line)
  return (line:gsub("(%S) (%[%d+%])", "%1" .. M.NBSP .. "%2"))
end

--- The answer's `lines` laid out for a window `width` columns wide (`answer_text.wrap_sources`): a source line (a
--- key of `by_line`) wrapped by `wrap_source(line, width)`, a code line wider than `width` broken (|M.split|), the
--- citations of the other lines glued to their words (|M.glue_citations|). Returns the lines, `by_line` for them
--- (every part of a source line maps to its source), `moved` (`moved[i]`: where line i, its first part, is now) and
--- `joins` (line number of a part of a code line after its first -> bytes of its hanging indent).
---@param lines string[]
---@param by_line table<integer, table>
---@param width integer
---@param wrap_source fun(line: string, width: integer): string[]
---@return string[] lines
---@return table<integer, table> by_line
---@return integer[] moved
---@return table<integer, integer> joins
function M.lay_out(lines, by_line, width, wrap_source)
  local out, out_by, moved, joins, code = {}, {}, {}, {}, M.code_lines(lines)
  for i, line in ipairs(lines) do
    moved[i] = #out + 1
    local parts, hang = { M.glue_citations(line) }, 0
    if by_line[i] then
      parts = wrap_source(line, width)
    elseif code[i] then
      parts, hang = M.split(line, width)
    end
    for p, part in ipairs(parts) do
      table.insert(out, part)
      out_by[#out] = by_line[i]
      joins[#out] = p > 1 and code[i] and hang or nil
    end
  end
  return out, out_by, moved, joins
end

--- Remember where the code lines of `buf` were broken (`joins`: line number of a part after the first -> bytes of
--- its hanging indent) for the yanks of its text; the first call for a buffer sets the |TextYankPost| that joins
--- them (|M.joined|).
---@param buf integer
---@param joins table<integer, integer>
function M.track(buf, joins)
  local known = joins_of[buf] ~= nil
  joins_of[buf] = joins
  if known then
    return
  end
  vim.api.nvim_create_autocmd("TextYankPost", { buffer = buf, desc = "ragls: a broken code line yanked whole",
    callback = function()
      local ev = vim.v.event
      if ev.operator ~= "y" or ev.regtype:sub(1, 1) == "\22" then -- (a block's columns: as shown)
        return
      end
      local joined = M.joined(ev.regcontents, vim.api.nvim_buf_get_mark(buf, "[")[1], joins_of[buf] or {})
      if vim.deep_equal(joined, ev.regcontents) then
        return
      end
      local names = ev.regname == "" and { '"', "0" } or { ev.regname }
      for _, name in ipairs(names) do
        pcall(vim.fn.setreg, name, joined, ev.regtype)
      end
    end })
  vim.api.nvim_create_autocmd("BufWipeout", { buffer = buf, once = true, callback = function() joins_of[buf] = nil end })
end

--- The yanked `lines` (the first from line `first` of the buffer) with each part of a broken code line joined to the
--- one before it, its hanging indent taken off (`joins`, |M.track|), and a citation's space an ASCII one again.
---@param lines string[]
---@param first integer
---@param joins table<integer, integer>
---@return string[]
function M.joined(lines, first, joins)
  local out = { lines[1] }
  for k = 2, #lines do
    local hang = joins[first + k - 1]
    if hang then
      out[#out] = out[#out] .. lines[k]:sub(hang + 1)
    else
      table.insert(out, lines[k])
    end
  end
  return vim.tbl_map(function(l) return (l:gsub(M.NBSP .. "(%[%d+%])", " %1")) end, out)
end

return M
