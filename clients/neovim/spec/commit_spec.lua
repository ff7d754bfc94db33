-- :RagCommit against the real ragls server in a temporary git repository with a staged change.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local function git(...)
  local res = vim.system({ "git", "-C", H.workspace, ... }, { text = true }):wait()
  assert(res.code == 0, ("git %s failed: %s"):format(table.concat({ ... }, " "), res.stderr))
  return res.stdout
end

-- The workspace becomes a repository with one commit, then a staged edit of faq.md.
git("init", "-q", "-b", "main")
git("config", "user.name", "Test")
git("config", "user.email", "test@example.com")
git("add", "-A")
git("commit", "-q", "-m", "initial notes")
local faq = vim.fs.joinpath(H.workspace, "faq.md")
local lines = vim.fn.readfile(faq)
vim.list_extend(lines, { "", "## Can I encrypt backups?", "", "Yes: set `encrypt_backups = true` in `quillmark.toml`." })
vim.fn.writefile(lines, faq)
git("add", "faq.md")

H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)

local template = {
  "",
  "# Please enter the commit message for your changes. Lines starting",
  "# with '#' will be ignored, and an empty message aborts the commit.",
  "#",
  "# Changes to be committed:",
  "#\tmodified:   faq.md",
  "#",
}

local function expected_message()
  local resp = H.request_sync(client, "rag/commitMessage", { staged = true, repository = vim.uri_from_fname(H.workspace) })
  H.eq(nil, resp.err, "rag/commitMessage error")
  H.eq({ "faq.md" }, resp.result.files, "staged files")
  return resp.result.message
end

H.it(":RagCommit in a gitcommit buffer inserts the message above the comment lines", function()
  local message = expected_message()
  H.ok(vim.trim(message) ~= "", "non-empty message")
  local path = vim.fs.joinpath(H.workspace, ".git", "COMMIT_EDITMSG")
  vim.fn.writefile(template, path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  H.eq("gitcommit", vim.bo.filetype, "filetype detected")
  local buf = vim.api.nvim_get_current_buf()
  -- git's editor buffer is not a document: no client attaches to it (none would start for `git commit` alone).
  H.wait_for(function() return vim.b[buf].ragls_detached ~= nil end, 5000, "the (scheduled) attach decision")
  H.eq("a git file, not a document", vim.b[buf].ragls_detached, "detached, with the reason")
  H.eq(0, #vim.lsp.get_clients({ bufnr = buf }), "not attached")
  vim.cmd("RagCommit")
  H.wait_for(function()
    return vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] ~= ""
  end, 60000, "the message in the buffer")
  local want = vim.split(vim.trim(message), "\n")
  table.insert(want, "")
  vim.list_extend(want, vim.list_slice(template, 2))
  H.eq(want, vim.api.nvim_buf_get_lines(buf, 0, -1, false), "buffer: message, blank line, comments")
  H.eq(buf, vim.api.nvim_get_current_buf(), "still in the gitcommit buffer")
end)

H.it(":RagCommit elsewhere opens the message in a scratch gitcommit buffer", function()
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local before = vim.api.nvim_get_current_buf()
  vim.cmd("RagCommit")
  local buf = H.wait_for(function()
    local b = vim.api.nvim_get_current_buf()
    return b ~= before and vim.bo[b].filetype == "gitcommit" and b
  end, 60000, "the scratch buffer")
  H.eq("nofile", vim.bo[buf].buftype, "scratch")
  H.eq(vim.split(vim.trim(expected_message()), "\n"), vim.api.nvim_buf_get_lines(buf, 0, -1, false), "message")
end)

H.it("nothing staged is reported with the server's message", function()
  git("reset", "-q")
  H.notes = {}
  vim.cmd("RagCommit")
  local note = H.wait_for(function()
    return H.notes_matching("ragls: commit message failed: ")[1]
  end, 30000, "the error notification")
  H.contains(note.msg, "nothing staged — stage changes", "the server's message is kept")
  H.contains(note.msg, ":RagCommit!", "tells how to use the working-tree diff from Neovim")
  H.ok(not note.msg:find("staged:false", 1, true), "no protocol wording: " .. note.msg)
  H.ok(not note.msg:find("rag/", 1, true), "no protocol method name: " .. note.msg)
  H.eq(vim.log.levels.ERROR, note.level, "level")
end)

H.it(":RagCommit! writes the message from the unstaged changes (staged = false)", function()
  local resp = H.request_sync(client, "rag/commitMessage", { staged = false, repository = vim.uri_from_fname(H.workspace) })
  H.eq(nil, resp.err, "rag/commitMessage staged=false error")
  H.eq({ "faq.md" }, resp.result.files, "changed files")
  vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
  local before = vim.api.nvim_get_current_buf()
  H.notes = {}
  vim.cmd("RagCommit!")
  local buf = H.wait_for(function()
    local b = vim.api.nvim_get_current_buf()
    return b ~= before and vim.bo[b].filetype == "gitcommit" and b
  end, 60000, "the scratch buffer")
  H.eq(vim.split(vim.trim(resp.result.message), "\n"), vim.api.nvim_buf_get_lines(buf, 0, -1, false), "message")
  H.eq({}, H.notes_matching("request failed"), "no error")
end)

H.finish()
