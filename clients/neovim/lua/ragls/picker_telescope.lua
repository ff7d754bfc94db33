---@mod ragls.picker_telescope :RagQuery in telescope.nvim (|ragls.picker|): a dynamic finder re-querying as you type.

local jump = require("ragls.jump")
local ragls_picker = require("ragls.picker")
local ui = require("ragls.ui")

local M = {}

--- telescope's selection kinds (actions.set.select) as |ragls.picker.open|'s `how`.
local TELESCOPE_SPLITS = { horizontal = "split", vertical = "vsplit", tab = "tab", ["tab drop"] = "tab" }

--- telescope entry of a rag/query chunk: shown as |ragls.picker|'s `format`, at its cited lines' start: `lnum`,
--- and `col` in BYTES, 0-based, because telescope's `<C-v>`/`<C-x>`/`<C-t>` (actions.set.edit) hand it to |nvim_win_set_cursor()|
--- as it is (without a `col` they put the cursor on the line's second byte).
---@param chunk table PROTOCOL Chunk
---@return table
function M.telescope_entry(chunk)
  if chunk.ragls_notice then
    return { value = chunk, display = chunk.ragls_notice, ordinal = chunk.ragls_notice }
  end
  local fname = ui.source_fname(chunk.source)
  local lnum, col0 = jump.source_start(chunk.source, fname)
  return { value = chunk, display = ragls_picker.format(chunk), ordinal = ragls_picker.format(chunk),
    filename = fname, lnum = lnum, col = col0 }
end

--- telescope.nvim: dynamic finder (one rag/query per prompt change, debounced), buffer previewer at the lines.
---@param text string
---@return { prompt: fun(): string|nil, refresh: fun() } handle  the open picker's prompt (nil once closed) and a
---  refresh running its finder again (the picker was opened while its server started)
function M.pick(text)
  local pickers = require("telescope.pickers")
  local finders = require("telescope.finders")
  local previewers = require("telescope.previewers")
  local sorters = require("telescope.sorters")
  local actions = require("telescope.actions")
  local state = require("telescope.actions.state")
  local last, last_query = {}, nil
  local previewed = nil -- the location of the entry the preview shows (its title)
  local picker = pickers.new({}, {
    prompt_title = "RagQuery",
    default_text = text,
    debounce = ragls_picker.DEBOUNCE_MS,
    finder = finders.new_dynamic({
      fn = function(prompt)
        last, last_query = ragls_picker.query_sync(prompt), prompt
        return last
      end,
      entry_maker = M.telescope_entry,
    }),
    sorter = sorters.empty(),
    previewer = previewers.new_buffer_previewer({
      -- The preview is titled with the path and lines it shows ("guide/x.md:8-10"), as telescope's file previewers
      -- are with `dynamic_preview_title`: without that option (its default) telescope asks `title` after each
      -- preview, which names the entry last previewed; it read "ragls" over every result.
      title = function()
        return previewed or "ragls"
      end,
      dyn_title = function(_, entry)
        return entry.value.source and ui.source_location(entry.value.source) or "ragls"
      end,
      define_preview = function(self, entry)
        local chunk = entry.value
        previewed = chunk.source and ui.source_location(chunk.source) or nil
        if chunk.ragls_notice then
          vim.api.nvim_buf_set_lines(self.state.bufnr, 0, -1, false, { chunk.ragls_notice })
          if self.state.winid and vim.api.nvim_win_is_valid(self.state.winid) then
            vim.wo[self.state.winid].wrap, vim.wo[self.state.winid].linebreak = true, true
          end
          return
        end
        local fname = ui.source_fname(chunk.source)
        -- a chunk of extracted text (a PDF, HTML or DOCX file) previews that text, whose lines it counts
        local text_buf = require("ragls.extracted").source_buffer(chunk.source)
        local lines = text_buf and vim.api.nvim_buf_get_lines(text_buf, 0, -1, false)
          or fname and vim.fn.filereadable(fname) == 1 and vim.fn.readfile(fname)
          or ragls_picker.preview_lines(chunk)
        vim.api.nvim_buf_set_lines(self.state.bufnr, 0, -1, false, lines)
        if fname then
          local bufnr, winid = self.state.bufnr, self.state.winid
          vim.bo[bufnr].filetype = text_buf and vim.bo[text_buf].filetype or vim.filetype.match({ filename = fname })
            or ""
          local range = chunk.source.focusRange or chunk.source.range
          jump.highlight_range(bufnr, range, 0)
          -- telescope puts this buffer into the preview window in a vim.schedule after define_preview returns;
          -- the cursor is placed after that (a later schedule), else it lands in the old buffer and the new one
          -- shows from its top.
          vim.schedule(function()
            if vim.api.nvim_win_is_valid(winid) and vim.api.nvim_win_get_buf(winid) == bufnr then
              -- Prose wraps at words (telescope turns 'wrap' off in its previews): the cited lines of a docs page
              -- were cut at the preview's edge, half of each sentence unreadable (snacks' preview wraps).
              vim.wo[winid].wrap, vim.wo[winid].linebreak = true, true
              pcall(vim.api.nvim_win_set_cursor, winid, { range.start.line + 1, 0 })
              vim.api.nvim_win_call(winid, function()
                vim.cmd("normal! zz")
              end)
            end
          end)
        end
      end,
    }),
    attach_mappings = function(bufnr, map)
      -- Every way of opening an entry (<CR>, <C-x>, <C-v>, <C-t>, and the drop variants) goes through
      -- ragls_picker.open, as <CR> does: telescope's own edit opened `filename`, the raw HTML, PDF or DOCX file of a
      -- result whose lines count its extracted text.
      require("telescope.actions.set").select:replace(function(_, kind)
        local entry = state.get_selected_entry()
        if entry and entry.value.ragls_notice then
          return -- a notice ("starting the server"): nothing to open, the picker stays
        end
        actions.close(bufnr)
        if entry then
          ragls_picker.open(entry.value, TELESCOPE_SPLITS[kind])
        end
      end)
      local function to_quickfix()
        local prompt = state.get_current_line()
        actions.close(bufnr)
        -- The results of the prompt as shown (the finder's last call may have been for another prompt).
        ragls_picker.to_quickfix(prompt, prompt == last_query and last or ragls_picker.query_sync(prompt))
      end
      map({ "i", "n" }, "<C-q>", to_quickfix)
      -- <M-q> (telescope: the selected entries to quickfix) lists them as ragls does: extracted text in its buffer
      actions.send_selected_to_qflist:replace(function()
        local chosen = vim.tbl_map(function(e) return e.value end, state.get_current_picker(bufnr):get_multi_selection())
        if #chosen == 0 then
          return to_quickfix()
        end
        local prompt = state.get_current_line()
        actions.close(bufnr)
        ragls_picker.to_quickfix(prompt, chosen)
      end)
      return true
    end,
  })
  picker:find()
  local function open()
    return picker.prompt_bufnr ~= nil and vim.api.nvim_buf_is_valid(picker.prompt_bufnr)
  end
  return {
    prompt = function()
      return open() and picker:_get_prompt() or nil
    end,
    refresh = function()
      if open() then
        picker:refresh()
      end
    end,
  }
end

return M
