---@mod ragls.picker_snacks :RagQuery in snacks.nvim's picker (|ragls.picker|): live, re-queried as you type.

local jump = require("ragls.jump")
local ragls_picker = require("ragls.picker")
local ui = require("ragls.ui")

local M = {}

--- snacks' jump commands (`action.cmd` of its split, vsplit, tab and tabdrop actions) as |ragls.picker.open|'s `how`.
local SNACKS_SPLITS = { split = "split", vsplit = "vsplit", tab = "tab", tabdrop = "tab" }

--- snacks.nvim picker item `i` of a rag/query chunk: `pos` is {1-based line, 0-based BYTE column} of its cited
--- lines' start (what snacks' preview, jump and quickfix read), `end_pos` the end of their last line (snacks' preview
--- lights `pos` to `end_pos`: {last line, 0} left the last cited line unlit), `preview_title` its `path:lines` (as
--- telescope's and fzf-lua's previews are titled; snacks' own title is the file's name alone).
---@param i integer
---@param chunk table PROTOCOL Chunk
---@return table
function M.snacks_item(i, chunk)
  if chunk.ragls_notice then
    return { idx = i, text = chunk.ragls_notice, preview = { text = chunk.ragls_notice }, chunk = chunk }
  end
  local fname = ui.source_fname(chunk.source)
  local lnum, col0 = jump.source_start(chunk.source, fname)
  return { idx = i, score = chunk.score, text = ragls_picker.format(chunk), file = fname, pos = { lnum, col0 },
    end_pos = { jump.source_end(chunk.source, fname) }, chunk = chunk, preview = "file",
    preview_title = ui.source_location(chunk.source) }
end

--- The cited lines of snacks' preview window `win` in one colour, its cursor line's, as telescope and fzf-lua light
--- them: snacks draws its cursor line (the first cited line) as `SnacksPickerPreviewCursorLine` (Visual) and the
--- rest of `pos`..`end_pos` as `SnacksPickerSearch` (Search), two colours for one passage. Only in this window
--- ('winhighlight'); called at each preview, as snacks sets the window's 'winhighlight' again when its layout changes.
---@param win integer
function M.one_colour(win)
  if not (win and vim.api.nvim_win_is_valid(win)) then
    return
  end
  local hl = vim.wo[win].winhighlight
  if not hl:find("SnacksPickerSearch:", 1, true) then
    vim.wo[win].winhighlight = (hl == "" and "" or hl .. ",") .. "SnacksPickerSearch:SnacksPickerPreviewCursorLine"
  end
end

--- snacks.nvim picker: live (re-queried as you type), file preview at the chunk.
---@param text string
---@return { prompt: fun(): string|nil, refresh: fun() } handle  as telescope's
function M.pick(text)
  local Snacks = require("snacks")
  local last, last_query = {}, text
  --- confirm (<CR>), its split, vsplit and tab variants (<C-s>, <C-v>, <C-t>: `action.cmd`) and snacks' jump: the
  --- chunk opened by ragls_picker.open, in the picker's main window (the one snacks' pick_win chose).
  local function open(picker, item, action)
    if item and item.chunk.ragls_notice then
      return -- a notice ("starting the server"): nothing to open, the picker stays
    end
    if vim.fn.mode():sub(1, 1) == "i" then -- (as snacks' jump: the key typed in the prompt leaves insert mode first)
      vim.cmd.stopinsert()
      vim.schedule(function() open(picker, item, action) end)
      return
    end
    local main = picker.main
    picker:close()
    if not item then
      return
    end
    if main and vim.api.nvim_win_is_valid(main) then
      vim.api.nvim_set_current_win(main)
    end
    ragls_picker.open(item.chunk, SNACKS_SPLITS[action and action.cmd or ""])
  end
  local function to_quickfix(picker)
    picker:close()
    ragls_picker.to_quickfix(last_query, last)
  end
  local picker = Snacks.picker.pick({
    title = "RagQuery",
    search = text,
    live = true,
    finder = function(_, ctx)
      local q = ctx.filter.search
      last, last_query = ragls_picker.query_sync(q), q
      local items = {}
      for i, chunk in ipairs(last) do
        table.insert(items, M.snacks_item(i, chunk))
      end
      return items
    end,
    format = function(item)
      return { { item.text } }
    end,
    -- each item says how: "file" for a result, its own text for a notice; a result of extracted text (a PDF, HTML
    -- or DOCX file) previews the buffer of that text, whose lines it counts (made when first previewed)
    preview = function(ctx)
      local item = ctx.item
      local text_buf = item.chunk and not item.chunk.ragls_notice and not item.buf
        and require("ragls.extracted").source_buffer(item.chunk.source)
      if text_buf then
        local source = vim.tbl_extend("force", item.chunk.source, { bufnr = text_buf })
        item.buf, item.pos, item.end_pos = text_buf, { jump.source_start(source) }, { jump.source_end(source) }
      end
      local shown = Snacks.picker.preview.preview(ctx)
      M.one_colour(ctx.win)
      return shown
    end,
    confirm = open,
    actions = {
      -- snacks' own jump (<S-CR>: pick a window, then jump; `edit`) and quickfix list (<C-q> in the list) open and
      -- list a result as ragls does: its `file` is the raw HTML, PDF or DOCX file of a result of extracted text
      jump = open,
      ragls_quickfix = to_quickfix,
      qflist = to_quickfix,
    },
    win = {
      input = { keys = { ["<C-q>"] = { "ragls_quickfix", mode = { "i", "n" } } } },
      -- prose wraps at words, as in telescope's and fzf-lua's previews (snacks' wraps mid-word: "conflicti" / "ng")
      preview = { wo = { wrap = true, linebreak = true } },
    },
  })
  return {
    prompt = function()
      return picker and not picker.closed and picker:filter().search or nil
    end,
    refresh = function()
      if picker and not picker.closed then
        picker:refresh()
      end
    end,
  }
end

return M
