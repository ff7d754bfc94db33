---@mod ragls.picker_snacks :RagQuery in snacks.nvim's picker (|ragls.picker|): live, re-queried as you type.

local jump = require("ragls.jump")
local ragls_picker = require("ragls.picker")
local ui = require("ragls.ui")

local M = {}

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

--- snacks.nvim picker: live (re-queried as you type), file preview at the chunk.
---@param text string
---@return { prompt: fun(): string|nil, refresh: fun() } handle  as telescope's
function M.pick(text)
  local Snacks = require("snacks")
  local last, last_query = {}, text
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
      return Snacks.picker.preview.preview(ctx)
    end,
    confirm = function(picker, item)
      if item and item.chunk.ragls_notice then
        return -- a notice ("starting the server"): nothing to open, the picker stays
      end
      picker:close()
      if item then
        ragls_picker.open(item.chunk)
      end
    end,
    actions = {
      ragls_quickfix = function(picker)
        picker:close()
        ragls_picker.to_quickfix(last_query, last)
      end,
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
