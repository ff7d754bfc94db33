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
  -- with a UI attached all along (attaching one redraws an empty cmdline) and Neovim's own vim.notify: what a user
  -- without a notification plugin sees on the cmdline
  vim.notify = H.real_notify
  local ok, shown = pcall(H.with_ui, function()
    vim.cmd("RagCommit")
    local b = H.wait_for(function()
      local cur = vim.api.nvim_get_current_buf()
      return cur ~= before and vim.bo[cur].filetype == "gitcommit" and cur
    end, 60000, "the scratch buffer")
    vim.cmd("redraw")
    return { buf = b, rows = H.screen_text() }
  end)
  vim.notify = H.notify_recorder
  assert(ok, shown)
  local buf, rows = shown.buf, shown.rows
  -- "writing a commit message…" is gone from the cmdline once the message is there (it stayed until the next message)
  H.ok(not rows[#rows]:find("writing a commit message", 1, true), "the cmdline: " .. rows[#rows])
  H.screenshot("neovim-commit-scratch")
  local message = vim.split(vim.trim(expected_message()), "\n")
  local want = vim.list_extend(vim.deepcopy(message), { "",
    "# :w commits the staged changes", "# with this message; lines starting with '#' are left out.", "# :q! drops it." })
  H.eq(want, vim.api.nvim_buf_get_lines(buf, 0, -1, false), "message, then how to commit it")
  H.eq(false, vim.bo[buf].modified, "unmodified: :q closes it without a question")
end)

H.it(":w in the scratch commit buffer commits the staged changes with its message (the # hint left out)", function()
  local buf = vim.api.nvim_get_current_buf()
  H.eq("ragls://commit-message", vim.api.nvim_buf_get_name(buf), "still in the scratch buffer")
  vim.api.nvim_buf_set_lines(buf, 0, 1, false, { "docs: say how to encrypt backups" }) -- the user edits the subject
  local body = vim.list_slice(vim.api.nvim_buf_get_lines(buf, 0, -1, false), 1, 1)
  H.notes = {}
  vim.cmd("write")
  H.wait_for(function()
    return not vim.api.nvim_buf_is_valid(buf)
  end, 30000, "the buffer to close after the commit")
  H.eq("docs: say how to encrypt backups", vim.trim(git("log", "-1", "--format=%s")), "committed with the edited subject")
  H.ok(not git("log", "-1", "--format=%B"):find("#", 1, true), "no # hint in the commit")
  H.eq("", git("diff", "--cached", "--name-only"), "nothing staged any more")
  H.ok(H.notes_matching("docs: say how to encrypt backups")[1], "git's summary line notified: " .. vim.inspect(H.notes))
  H.eq({ "docs: say how to encrypt backups" }, body, "subject as edited")
  -- A new staged edit for the specs below (nothing staged / :RagCommit!).
  local more = vim.fn.readfile(faq)
  vim.list_extend(more, { "", "## Where do encrypted backups go?", "", "To the `backups` folder, as before." })
  vim.fn.writefile(more, faq)
  git("add", "faq.md")
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
  H.eq(vim.split(vim.trim(resp.result.message), "\n"), vim.list_slice(vim.api.nvim_buf_get_lines(buf, 0, -1, false), 1,
    #vim.split(vim.trim(resp.result.message), "\n")), "message")
  H.contains(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"),
    "# :w commits the changes to tracked files (git commit -a)\n# with this message", "the hint says what :w commits")
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    H.ok(not vim.startswith(line, "#") or #line <= 72, "a hint line as short as git's template: " .. line)
  end
  H.eq({}, H.notes_matching("request failed"), "no error")
end)

H.finish()
