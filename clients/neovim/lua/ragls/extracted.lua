---@mod ragls.extracted A converted document's extracted text in a buffer of its own.
---
--- The lines of a source with `extractedText` (PROTOCOL: a PDF, HTML or DOCX file, a web page) count the text ragls
--- extracted from it, not the file's lines: opening the file itself put the cursor on the wrong line of HTML and in
--- the bytes of a PDF. Such a source opens in a read-only buffer holding that text, as the server reads it
--- (`rag/readPassage`: the indexer's conversion, secrets masked as in the index), named
--- `ragls://extracted/<file>`; the cited lines are then the buffer's lines.

local M = {}

--- A notice through |ragls.rpc| (one wider than the command line in a float, |ragls.notice|).
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

--- Lines per `rag/readPassage` request (the server's most), and the most lines a buffer takes.
local READ_LINES = 400
local MAX_LINES = 200000

--- The name of the extracted-text buffer of file `fname`: `ragls://extracted/` and the file's path as Neovim shows
--- it (relative to the current directory, else to ~), so the quickfix list and the statusline read
--- "ragls://extracted/guide/pairing.html", not the whole absolute path.
---@param fname string
---@return string
function M.buffer_name(fname)
  return "ragls://extracted/" .. vim.fn.fnamemodify(fname, ":~:.")
end

--- The buffer holding the extracted text of file `fname` (made and filled once, from the running ragls server that
--- indexes it); nil, with a warning, when no server can read it.
---@param fname string
---@return integer|nil bufnr
function M.buffer(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[b].ragls_extracted == fname then
      return b
    end
  end
  local client = require("ragls.server").find_client(nil)
  if not client then
    notify("ragls: the server is not running; its extracted text of " .. fname .. " cannot be read",
      vim.log.levels.WARN)
    return nil
  end
  local lines, first = {}, 1
  while #lines < MAX_LINES do
    local resp = client:request_sync("rag/readPassage",
      { path = vim.uri_from_fname(fname), startLine = first, endLine = first + READ_LINES - 1 }, 10000)
    local r = resp and resp.result
    if not r then
      local why = resp and resp.err and resp.err.message or "no answer"
      notify(("ragls: cannot read the extracted text of %s: %s"):format(fname, why), vim.log.levels.WARN)
      return nil
    end
    if r.endLine >= r.startLine then
      vim.list_extend(lines, vim.split(r.text, "\n", { plain = true }))
    end
    if r.endLine >= r.totalLines or r.endLine < first then
      break
    end
    first = r.endLine + 1
  end
  local bufnr = vim.api.nvim_create_buf(true, true)
  -- (the whole path when a file of the same shown path in another directory has its buffer already)
  if not pcall(vim.api.nvim_buf_set_name, bufnr, M.buffer_name(fname)) then
    vim.api.nvim_buf_set_name(bufnr, "ragls://extracted/" .. fname)
  end
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.b[bufnr].ragls_extracted = fname
  vim.bo[bufnr].buftype = "nofile"
  vim.bo[bufnr].bufhidden = "hide"
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].readonly = true
  -- Markdown for an HTML or DOCX file (headings and lists as ragls extracts them), plain text for a PDF's pages
  vim.bo[bufnr].filetype = fname:lower():match("%.pdf$") and "text" or "markdown"
  -- A paragraph is one line of the extracted text: wrapped at words in each window showing it (only there: a
  -- window-local value set while this buffer is in the window stays with it), as VS Code wraps Markdown. With the
  -- user's 'nowrap' a paragraph ran off the window's edge, and 'wrap' alone cut its words in two.
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = bufnr,
    callback = function()
      vim.opt_local.wrap, vim.opt_local.linebreak = true, true
    end,
  })
  return bufnr
end

--- The buffer a source's cited lines are the lines of when they count extracted text (PROTOCOL Source
--- `extractedText` on a file): its extracted-text buffer (|M.buffer|), for the quickfix items and picker previews
--- that |ragls.jump.jump_to_source| would open it in. nil for any other source (its own file or `bufnr`), and (warned)
--- when no server can read the text.
---@param source table PROTOCOL Source
---@return integer|nil bufnr
function M.source_buffer(source)
  if source.extractedText ~= true or source.bufnr then
    return nil
  end
  local fname = require("ragls.answer_text").source_fname(source)
  return fname and M.buffer(fname) or nil
end

return M
