-- rag/status notices and warnings with the real server on a repository of code only, whose untrusted ragls.toml
-- names an LLM: the index holds no file (the server's notice says what to set), the LLM settings are ignored
-- (its rag/status errors entry of severity "warning", and generation.ignored), and an old setting name is a note.
-- :RagStatus and :checkhealth ragls show them, the untrusted file once.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local app = vim.fs.normalize(vim.uv.fs_realpath(vim.fn.tempname()) or vim.fn.tempname()) .. "-app"
vim.fn.mkdir(app .. "/.git", "p")
vim.fn.writefile({ "def main():", "    print('hello')" }, app .. "/main.py")
-- Not trusted (nobody ran `ragls trust` here): its LLM settings are ignored, and said so.
vim.fn.writefile({ "[generation]", 'backend = "openai"', 'model = "gpt-4o-mini"' }, app .. "/ragls.toml")

-- The offline model and no watcher from the editor's settings; `sufficiency_floor` is the old name of
-- retrieval.min_similarity (it still works, with a notice naming the new one).
local settings = {
  embedding = { model = "sentence-transformers/all-MiniLM-L6-v2", model_path = os.getenv("RAGLS_TEST_MODEL_DIR") },
  watch = { enabled = false },
  retrieval = { sufficiency_floor = 0.2 },
}
H.load_plugin({ cmd = H.server_cmd, settings = settings })
vim.cmd.cd(vim.fn.fnameescape(app))
vim.cmd.edit("main.py")
local client = H.wait_for(function()
  local c = vim.lsp.get_clients({ name = "ragls", bufnr = 0 })[1]
  return c and c.initialized and c
end, 120000, "the ragls client to attach and initialize")
local status = H.wait_for(function()
  local result = H.request_sync(client, "rag/status", vim.empty_dict()).result
  -- the notice can come before the index run ends (its files are counted first): wait for lastIndexedAt too
  local folder = result.folders and result.folders[1]
  if not (folder and folder.lastIndexedAt and folder.lastIndexedAt ~= vim.NIL) then
    return nil
  end
  -- and for the opened buffer's file to leave the queue: :RagStatus below asks again, and its "queued" row must
  -- match this snapshot (CI once saw "queued 1 file" here and none in the float)
  if (tonumber(folder.pending) or 0) > 0 then
    return nil
  end
  -- and for the server to be done: its model loaded and its indexing progress ended. The float's Embedding and
  -- Progress rows come from then (CI once saw "indexing 1-app (0%)" here, "loading the embedding model" there)
  if result.embeddingSource == nil or result.embeddingSource == vim.NIL or require("ragls.progress").indexing() then
    return nil
  end
  for _, n in ipairs(result.notices or {}) do
    if n:find(": no file here matches sources.include", 1, true) then
      return result
    end
  end
end, 120000, "the first index to finish, nothing queued, the model loaded, no progress, with the notice of a folder "
  .. "whose index holds no file")

H.it("the server's status: the folder's notice, the ignored LLM settings and a note", function()
  H.eq(0, status.folders[1].files, "files")
  H.contains(tostring(status.generation.ignored), "ragls.toml's LLM settings (generation.backend, generation.model)")
  local joined = table.concat(status.notices, "\n")
  H.contains(joined, app .. ": no file here matches sources.include")
  H.contains(joined, "sufficiency_floor is an old name of retrieval.min_similarity")
  -- each notice's level (docs/protocol.md noticeLevels): the folder's is a warning, the old setting name a note
  H.eq(#status.notices, #status.noticeLevels, "one level per notice")
  for i, n in ipairs(status.notices) do
    H.eq(n:find(": no file here matches", 1, true) and "warning" or "info", status.noticeLevels[i], n)
  end
end)

H.it("a folder's notice of level info (its autodoc pages) is a note under the folder, not a warning", function()
  local status_view = require("ragls.status_view")
  local info = vim.deepcopy(status)
  local autodoc = "2 pages (api/web.rst, api/app.md) document Python APIs with autodoc directives: index the package"
  table.insert(info.notices, app .. ": " .. autodoc)
  table.insert(info.noticeLevels, "info")
  local lines, marks = status_view.status_lines(info)
  local at = vim.iter(ipairs(lines)):find(function(_, l) return l == "  note       " .. autodoc end)
  H.ok(at, "a note row under the folder: " .. table.concat(lines, "\n"))
  H.eq(nil, marks[at - 1], "not in the colour of warnings")
  H.ok(vim.iter(ipairs(lines)):find(function(i, l) return vim.startswith(l, "  warning    no file") and i < at end),
    "the folder's warning still a warning, above it")
  -- from an older server (no noticeLevels) a notice led by a folder's path is a warning, as before
  info.noticeLevels = nil
  local old = status_view.status_lines(info)
  H.ok(vim.tbl_contains(old, "  warning    " .. autodoc), "older server: " .. table.concat(old, "\n"))
end)

H.it(":RagStatus shows the warnings in their rows, in the colour of warnings, and the notes", function()
  local status_view = require("ragls.status_view")
  local lines, marks = status_view.status_lines(status)
  local text = table.concat(lines, "\n")
  local notice = status.notices[1]:find(app, 1, true) and status.notices[1] or status.notices[2]
  -- under its folder, without the folder's path (the row above names it)
  local row
  for i, l in ipairs(lines) do
    row = row or (vim.startswith(l, "  warning    no file here matches sources.include") and i or nil)
  end
  H.ok(row, "the folder's warning row: " .. text)
  H.eq("  warning    " .. notice:sub(#app + 3), lines[row])
  H.eq("  0 files · 0 sections · indexed just now", lines[row - 1])
  H.eq("DiagnosticWarn", marks[row - 1], "highlight of the warning row")
  H.contains(text, "\n\nNote       setting ") -- a labelled row: wrapped, it goes on under its text
  -- the untrusted ragls.toml is one warning (its errors entry, severity "warning"), said once and not as an error:
  -- its row leads with the file (not repeated), the Answers row says only why answers are extractive
  local warning = vim.tbl_filter(function(e) return e.severity == "warning" end, status.errors)
  H.eq(1, #warning, "the server's warning entry: " .. vim.inspect(status.errors))
  H.eq("Answers    none (" .. status_view.IGNORED_LLM_NOTE .. ")", lines[1])
  -- its how-to-trust end (errors `trustHow`) said the Neovim way: :RagTrust, not a shell command (session 67)
  local how = warning[1].trustHow
  H.ok(type(how) == "string" and vim.startswith(how, "read the file, then run `ragls trust ")
    and vim.endswith(warning[1].message, how), vim.inspect(warning[1]))
  H.eq("Warning    " .. warning[1].message:sub(1, #warning[1].message - #how)
    .. "read the file, then run :RagTrust to use them", lines[2])
  H.ok(not text:find("ragls trust", 1, true), "no shell command in :RagStatus: " .. text)
  local older_line = status_view.error_line({ path = warning[1].path, message = warning[1].message })
  H.contains(older_line, "then run `ragls trust ") -- from an older server (no trustHow): its words as they are
  H.eq("DiagnosticWarn", marks[1], "highlight of the Warning row")
  H.ok(vim.startswith(warning[1].message, app .. "/ragls.toml is not trusted, so these settings were ignored: "),
    warning[1].message)
  H.ok(not text:find("\nError ", 1, true), "no Error row: " .. text)
  H.ok(not text:find(status.generation.ignored, 1, true), "generation.ignored not a second time: " .. text)
  local _, named = text:gsub("generation%.model", "")
  H.eq(1, named, "the ignored settings are named once: " .. text)
  vim.o.columns, vim.o.lines = 120, 36
  vim.cmd("RagStatus")
  local win = H.wait_for(function() return H.floats()[1] end, 20000, "status float")
  local buf = vim.api.nvim_win_get_buf(win)
  local width = vim.api.nvim_win_get_width(win)
  local shown = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  -- the rows wrapped at spaces to the float's width (never inside a word, as 'linebreak' wraps at "-", "." or "/"),
  -- each wrapped value under its value; joined again they are the status' rows
  H.eq((status_view.wrap_rows(lines, marks, width)), shown, "the float's lines")
  for _, l in ipairs(shown) do
    H.ok(vim.fn.strdisplaywidth(l) <= width, ("a line fits the float (%d columns): %q"):format(width, l))
  end
  local warn_at = vim.iter(ipairs(shown)):find(function(_, l) return #l > 13 and l == lines[row]:sub(1, #l) end)
  H.ok(warn_at and #shown[warn_at + 1]:match("^%s*") == #"  warning    ", "the warning goes on under its text: "
    .. table.concat(shown, "\n"))
  local parts = { shown[warn_at] }
  for r = warn_at + 1, #shown do
    if #shown[r]:match("^%s*") ~= #"  warning    " then
      break
    end
    table.insert(parts, shown[r])
  end
  local function words(l) return table.concat(vim.split(l, "%s+", { trimempty = true }), " ") end
  H.eq(words(lines[row]), words(table.concat(parts, " ")), "the warning's words, none split")
  for r = warn_at, warn_at + 1 do
    local hl = vim.api.nvim_buf_get_extmarks(buf, -1, { r - 1, 0 }, { r - 1, -1 }, { details = true })
    H.eq("DiagnosticWarn", hl[1] and hl[1][4].line_hl_group, "the float's warning rows")
  end
  -- a long note wraps under its own text (column 12 in the float), not 11 columns further in
  local rows, at = H.screen_row("│Note       setting")
  local first = rows[at]:find("setting", 1, true)
  local next_text = rows[at + 1]:find("%S", rows[at]:find("│", 1, true) + #"│")
  H.eq(first, next_text, "the note's second line starts under its first: " .. rows[at] .. "\n" .. rows[at + 1])
  H.screenshot("neovim-status-notices")
  vim.api.nvim_win_close(win, true)
end)

H.it(":checkhealth ragls warns with the folder's notice and the ignored LLM settings; a note is info", function()
  vim.cmd("checkhealth ragls")
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(health, "WARNING " .. app .. ": no file here matches sources.include")
  H.ok(not health:find("no files indexed", 1, true), "no second, vaguer warning for the folder: " .. health)
  H.contains(health, "- generation backend: none: " .. require("ragls.status_view").IGNORED_LLM_NOTE)
  H.contains(health, "WARNING " .. app .. "/ragls.toml is not trusted, so these settings were ignored: ")
  H.ok(not health:find(status.generation.ignored, 1, true), "generation.ignored not a second time: " .. health)
  H.ok(not health:find(app .. "/ragls.toml: " .. app, 1, true), "the file not named twice: " .. health)
  H.contains(health, "\n- setting retrieval.sufficiency_floor is an old name of retrieval.min_similarity")
  vim.cmd("bwipeout")
end)

H.it("from a server that sends no severity the entry is an error and generation.ignored the warning", function()
  local older = vim.deepcopy(status)
  for _, e in ipairs(older.errors) do
    e.severity = nil
  end
  local lines = require("ragls.status_view").status_lines(older)
  local text = table.concat(lines, "\n")
  H.eq("Answers    none (extractive answers, no LLM)", lines[1])
  H.contains(text, "\nWarning    " .. status.generation.ignored .. "\n")
  H.contains(text, "\nError      " .. app .. "/ragls.toml is not trusted")
end)

H.it("an older server's status (no notices, no generation.ignored) shows as before", function()
  local old = vim.deepcopy(status)
  old.notices, old.generation.ignored, old.errors = nil, nil, {}
  local lines, marks = require("ragls.status_view").status_lines(old)
  H.eq("Answers    none (extractive answers, no LLM)", lines[1])
  H.eq("Embedding  ", lines[2]:sub(1, 11))
  H.eq({}, marks, "no highlighted row")
  H.ok(not table.concat(lines, "\n"):find("\nNote ", 1, true), "no Note")
end)

H.finish()
