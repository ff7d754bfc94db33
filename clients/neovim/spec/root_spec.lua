-- Where the client starts: only inside a project (root markers), a stray file stays detached and indexes nothing,
-- :RagIndex indexes a folder on request, and a large first index asks once. Indexing progress through vim.notify.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local stray = vim.fn.tempname() .. "-stray"
vim.fn.mkdir(stray, "p")
vim.fn.writefile({ "# Todo", "", "Buy the quokka a hat before the parade on Friday." }, stray .. "/todo.md")
vim.fn.writefile({ "Unrelated notes about parades." }, stray .. "/other.md")
local cache = os.getenv("XDG_CACHE_HOME")

-- The stray folder has no ragls.toml: the offline model and no watcher come from the editor's settings.
local settings = {
  embedding = { model = "sentence-transformers/all-MiniLM-L6-v2", model_path = os.getenv("RAGLS_TEST_MODEL_DIR") },
  generation = { backend = "none" },
  watch = { enabled = false },
}
-- The stray folder is the cwd and the home directory, as in `cd ~ && nvim todo.txt` (HOME is given back before
-- :RagIndex: the server refuses to index the home directory).
local real_home = vim.env.HOME
vim.env.HOME = stray
H.load_plugin({ cmd = H.server_cmd, settings = settings })
vim.cmd.cd(vim.fn.fnameescape(stray))
local rootmod = require("ragls.root")

--- Index folders the servers created under the test's cache dir.
local function index_dirs()
  local found = {}
  local dir = vim.fs.joinpath(cache, "ragls", "indexes")
  if vim.fn.isdirectory(dir) == 1 then
    for name in vim.fs.dir(dir) do
      table.insert(found, name)
    end
  end
  return found
end

H.it("a stray file outside any project attaches nothing and indexes nothing", function()
  vim.cmd.edit("todo.md")
  -- The scheduled attach (plugin/ragls.lua) decides once; wait for its decision, not for a fixed time.
  H.wait_for(function() return vim.b.ragls_detached end, 5000, "the attach decision")
  H.eq(0, #vim.lsp.get_clients(), "no client")
  H.contains(vim.b.ragls_detached, "todo.md is not inside a project (no ragls.toml, .git above it, nor below a "
    .. "working directory other than ~)")
  H.eq({}, index_dirs(), "no index folder written")
  H.eq("ragls: off", require("ragls").statusline(), "statusline")
end)

H.it("`git commit` opening Neovim on .git/COMMIT_EDITMSG starts no server and indexes nothing", function()
  local repo = vim.fn.tempname() .. "-repo"
  vim.fn.mkdir(repo .. "/.git", "p")
  vim.fn.writefile({ "# Notes", "", "Some notes." }, repo .. "/notes.md")
  vim.fn.writefile({ "", "# Please enter the commit message for your changes." }, repo .. "/.git/COMMIT_EDITMSG")
  local prev = vim.api.nvim_get_current_buf()
  vim.cmd.edit(vim.fn.fnameescape(repo .. "/.git/COMMIT_EDITMSG"))
  H.eq("gitcommit", vim.bo.filetype, "git's commit message buffer")
  H.wait_for(function() return vim.b.ragls_detached end, 5000, "the attach decision")
  H.eq(0, #vim.lsp.get_clients(), "no client")
  H.eq({}, index_dirs(), "no index folder written")
  H.eq("a git file, not a document", vim.b.ragls_detached, "why (for the statusline's 'ragls: off')")
  local commit_buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_set_current_buf(prev)
  vim.api.nvim_buf_delete(commit_buf, { force = true })
end)

H.it(":Rag* commands say why nothing started and how to index the folder anyway", function()
  H.notes = {}
  vim.cmd("RagQuery! quokka hat")
  vim.cmd("RagStatus")
  local notes = H.notes_matching("is not inside a project")
  H.eq(2, #notes, "each command says why")
  H.contains(notes[1].msg, "Run :RagIndex to index")
  H.eq(vim.log.levels.WARN, notes[1].level, "a warning, not an error")
  H.eq(0, #vim.lsp.get_clients(), "still no client")
  H.eq({}, index_dirs(), "still nothing indexed")
end)

H.it(":RagIndex indexes the folder on request and attaches its buffers; progress arrives through vim.notify", function()
  vim.env.HOME = real_home
  H.notes = {}
  vim.cmd("RagIndex")
  local client = H.wait_for(function()
    local c = vim.lsp.get_clients({ name = "ragls", bufnr = 0 })[1]
    return c and c.initialized and c
  end, 60000, "the client to attach to todo.md")
  H.eq(vim.fs.normalize(vim.uv.fs_realpath(stray)), vim.fs.normalize(client.root_dir), "root is the folder")
  H.wait_for(function()
    local st = H.request_sync(client, "rag/status", vim.empty_dict()).result
    return st.folders[1].files == 2 and st.folders[1].pendingVectors == 0
  end, 120000, "the folder to be indexed")
  H.eq(1, #index_dirs(), "one index folder")
  -- Progress: vim.notify with a stable id per progress token (replaced in place by notification plugins).
  local running = H.wait_for(function()
    for _, n in ipairs(H.notes_matching("ragls: indexing ")) do
      if n.opts.ragls_progress then
        return n
      end
    end
  end, 20000, "an indexing progress notification")
  H.contains(running.opts.id or "", "ragls-progress-", "replace id")
  H.eq("ragls", running.opts.title, "title")
  local ended = H.wait_for(function()
    return H.notes_matching("ragls: indexed")[1]
  end, 60000, "the end of indexing")
  H.eq(running.opts.id, ended.opts.id, "the end replaces the same notification")
  H.eq("ragls", require("ragls").statusline(), "statusline once indexed")
end)

H.it("progress text and statusline while indexing: 'ragls: indexing 320/871 files (37%)'", function()
  local progress = require("ragls.progress")
  H.eq("ragls: indexing 320/871 files (37%)", progress.text({ title = "ragls: indexing", message = "320/871 files",
    percentage = 37 }))
  H.eq("ragls: indexing embedding (40%)", progress.text({ title = "ragls: indexing", message = "embedding",
    percentage = 40 }))
  -- The server's phase names start with a verb of their own: "indexing workspace" is not "indexing indexing …".
  H.eq("ragls: indexing workspace (0%)", progress.text({ title = "ragls: indexing", message = "indexing workspace",
    percentage = 0 }))
  -- (it read "ragls: indexing opening the index (0%)" at every start)
  H.eq("ragls: opening the index (0%)", progress.text({ title = "ragls: indexing", message = "opening the index",
    percentage = 0 }))
  H.eq("ragls: indexing for meaning search 3/9 sections (33%)", progress.text({ title = "ragls: indexing",
    message = "for meaning search 3/9 sections", percentage = 33 }))
  progress.on_progress({ token = "t-test", value = { kind = "begin", title = "ragls: indexing", message = "3/9 files",
    percentage = 33 } })
  H.eq("ragls: indexing 3/9 files (33%)", require("ragls").statusline(), "statusline while indexing")
  -- A search that finds nothing while the first index runs says so (it said "nothing relevant found").
  H.notes = {}
  require("ragls.quickfix").show_query("verbose flag", { chunks = {}, abstained = true })
  H.eq({ 'ragls: nothing found for "verbose flag" yet: the index is still being built' },
    vim.tbl_map(function(n) return n.msg end, H.notes), "while indexing")
  progress.on_progress({ token = "t-test", value = { kind = "end" } })
  H.eq(false, progress.indexing(), "ended")
  H.notes = {}
  require("ragls.quickfix").show_query("verbose flag", { chunks = {}, abstained = true })
  H.eq({ 'ragls: nothing relevant found for "verbose flag"' }, vim.tbl_map(function(n) return n.msg end, H.notes),
    "once indexed")
end)

H.it("before a large first index the user is asked once, with files, sections and the time estimate", function()
  for _, c in ipairs(vim.lsp.get_clients()) do
    c:stop(true)
  end
  -- (a client is gone once its server process has exited: on a loaded machine that can take seconds, and one
  -- still listed would count as "a client" below)
  H.wait_for(function() return #vim.lsp.get_clients() == 0 end, 30000, "the previous clients to stop")
  vim.cmd("%bwipeout!")
  -- The fixture workspace (ragls.toml root) with a tiny threshold: its first index counts as "large".
  require("ragls").setup({ cmd = H.server_cmd, index_confirm_minutes = 0.0001, settings = settings })
  local asked = {}
  local answer = 2 -- "Not now"
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, { items = items, prompt = opts.prompt })
    on_choice(items[answer], answer)
  end
  vim.cmd.cd(vim.fn.fnameescape(H.workspace))
  vim.cmd.edit("README.md")
  H.wait_for(function() return #asked > 0 end, 30000, "the question")
  local prompt = asked[1].prompt
  H.contains(prompt, "first index of ")
  H.contains(prompt, " 3 files, ~")
  H.contains(prompt, " sections, about ")
  H.contains(prompt, "to embed on a quiet machine, about ")
  H.contains(prompt, " now with start-up. Index it now?")
  H.eq("Index now", asked[1].items[1], "first choice")
  vim.wait(1000, function() return #vim.lsp.get_clients() > 0 end, 50)
  H.eq(0, #vim.lsp.get_clients(), "declined: no client")
  -- Asked once: another file of the same project does not ask again, and commands say it was declined.
  vim.cmd.edit("faq.md")
  vim.wait(500, function() return false end, 50)
  H.eq(1, #asked, "asked once")
  H.notes = {}
  vim.cmd("RagStatus")
  H.contains((H.notes_matching("was declined this session")[1] or {}).msg, "run :RagIndex")
  -- :RagIndex overrides the answer.
  vim.cmd("RagIndex " .. vim.fn.fnameescape(H.workspace))
  H.wait_for(function()
    local c = vim.lsp.get_clients({ name = "ragls", bufnr = 0 })[1]
    return c and c.initialized
  end, 60000, "the client after :RagIndex")
  H.eq(1, #asked, "no second question")
  vim.ui.select = select
  H.eq(vim.fs.normalize(vim.uv.fs_realpath(H.workspace)), rootmod.for_buffer(0), "root of the buffer")
end)

H.it("root_dir: ragls.toml wins over .git, else .git, else none", function()
  local base = vim.fn.tempname()
  vim.fn.mkdir(base .. "/repo/.git", "p")
  vim.fn.mkdir(base .. "/repo/docs/sub", "p")
  vim.fn.writefile({}, base .. "/repo/docs/ragls.toml")
  vim.fn.writefile({ "x" }, base .. "/repo/docs/sub/a.md")
  vim.fn.writefile({ "x" }, base .. "/repo/b.md")
  vim.fn.mkdir(base .. "/plain", "p")
  vim.fn.writefile({ "x" }, base .. "/plain/c.md")
  local real = vim.fs.normalize(vim.uv.fs_realpath(base))
  local rpc = require("ragls.rpc")
  local buf = vim.fn.bufadd(base .. "/repo/docs/sub/a.md")
  H.eq(real .. "/repo/docs", rpc.root_dir(buf), "ragls.toml root")
  buf = vim.fn.bufadd(base .. "/repo/b.md")
  H.eq(real .. "/repo", rpc.root_dir(buf), ".git root")
  buf = vim.fn.bufadd(base .. "/plain/c.md")
  local root, why = rpc.root_dir(buf)
  H.eq(nil, root, "no root outside a project")
  H.contains(why, "c.md is not inside a project")
  require("ragls").setup({ cmd = H.server_cmd, root_markers = { "c.md" } })
  H.eq(real .. "/plain", rpc.root_dir(buf), "configurable root_markers")
end)

H.it("a root marker another user owns is no marker (a /tmp/ragls.toml planted by someone else)", function()
  if vim.uv.getuid() ~= 0 then
    print("# skipped: only root can give a file to another user here")
    return
  end
  require("ragls").setup({ cmd = H.server_cmd, root_markers = { "ragls.toml", ".git" } }) -- the defaults again
  local base = vim.fn.tempname()
  vim.fn.mkdir(base .. "/shared/clone/.git", "p")
  vim.fn.mkdir(base .. "/shared/notes", "p")
  vim.fn.writefile({ '[sources]', 'include = ["**/*.md"]' }, base .. "/shared/ragls.toml")
  vim.fn.mkdir(base .. "/shared/.git", "p")
  vim.fn.writefile({ "x" }, base .. "/shared/clone/a.md")
  vim.fn.writefile({ "x" }, base .. "/shared/notes/n.md")
  local real = vim.fs.normalize(vim.uv.fs_realpath(base))
  H.eq(real .. "/shared", rootmod.find(base .. "/shared/clone/a.md"), "the user's own markers: ragls.toml first")
  assert(vim.uv.fs_chown(base .. "/shared/ragls.toml", 65534, 65534))
  assert(vim.uv.fs_chown(base .. "/shared/.git", 65534, 65534))
  H.notes = {}
  H.eq(real .. "/shared/clone", rootmod.find(base .. "/shared/clone/a.md"), "the clone's own .git, not /tmp's")
  H.eq(nil, rootmod.find(base .. "/shared/notes/n.md"), "neither the planted .git")
  H.ok(H.notes_matching("shared/ragls.toml belongs to another user (uid 65534)")[1], vim.inspect(H.notes))
end)

H.it("no root marker: the cwd is the root of the files below it (`cd docs && nvim index.md`), never ~ or above it",
  function()
  require("ragls").setup({ cmd = H.server_cmd })
  local base = vim.fs.normalize(vim.uv.fs_realpath(vim.fn.tempname() .. "-docs") or vim.fn.tempname())
  local docs = base .. "/site/docs"
  vim.fn.mkdir(docs .. "/guide", "p")
  vim.fn.writefile({ "x" }, docs .. "/guide/install.md")
  vim.fn.writefile({ "x" }, base .. "/site/outside.md")
  docs = vim.fs.normalize(vim.uv.fs_realpath(docs))
  local rpc = require("ragls.rpc")
  local prev = vim.fn.getcwd()
  vim.cmd.cd(vim.fn.fnameescape(docs))
  local inside = vim.fn.bufadd(docs .. "/guide/install.md")
  local outside = vim.fn.bufadd(base .. "/site/outside.md")
  H.eq(docs, rpc.root_dir(inside), "a file below the cwd: the cwd")
  local root, why = rpc.root_dir(outside)
  H.eq(nil, root, "a file above the cwd has no root")
  H.contains(why, "outside.md is not inside a project")
  vim.cmd.cd(vim.fn.fnameescape(base))
  local home = vim.env.HOME
  vim.env.HOME = docs -- the cwd (base) is above the home directory
  H.eq(nil, rpc.root_dir(inside), "never the home directory or above it")
  vim.env.HOME = home
  H.eq(vim.fs.normalize(vim.uv.fs_realpath(base)), rpc.root_dir(inside), "any other cwd")
  require("ragls").setup({ cmd = H.server_cmd, root_fallback = false })
  H.eq(nil, rpc.root_dir(inside), "root_fallback = false: detached")
  H.notes = {}
  H.eq(false, require("ragls").setup({ cmd = H.server_cmd, root_fallback = "home" }), "a bad root_fallback is refused")
  H.ok(H.notes_matching("`root_fallback` must be 'cwd' or false")[1], vim.inspect(H.notes))
  require("ragls").setup({ cmd = H.server_cmd })
  vim.cmd.cd(vim.fn.fnameescape(prev))
end)

H.it("vim.secure: the server gets the hash of the ragls.toml the user allowed; an edit made after it is not trusted "
  .. "until a save in Neovim is allowed", function()
  dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  dir = vim.fs.normalize(vim.uv.fs_realpath(dir))
  vim.fn.writefile({ "Quokkas nap at noon." }, dir .. "/notes.md")
  -- A file that needs trust to apply (a document loader runs a program); the ragls trust store has never seen it.
  local allowed = { "[retrieval]", "top_k = 3", "", "[document_loaders]", 'txt = "cat $1"' }
  vim.fn.writefile(allowed, dir .. "/ragls.toml")
  -- what (a)llow at vim.secure's prompt does: Neovim's trust database records this version of the file
  vim.o.eventignore = "all" -- (no server for this buffer)
  local buf = vim.fn.bufadd(dir .. "/ragls.toml")
  vim.fn.bufload(buf)
  vim.secure.trust({ action = "allow", bufnr = buf })
  vim.api.nvim_buf_delete(buf, { force = true })
  vim.o.eventignore = ""
  local server = require("ragls.server")
  local cfg = H.with_ui(function() return server.client_config(dir) end)
  H.eq(true, cfg.init_options.workspaceTrusted, "allowed")
  local digest = "sha256:" .. vim.fn.sha256(table.concat(allowed, "\n") .. "\n")
  H.eq({ [dir] = digest }, cfg.init_options.workspaceTrustedConfigs, "the allowed version's hash")
  H.eq(nil, server.client_config(dir).init_options.workspaceTrusted, "headless: no prompt, the trust store decides")
  -- The file changes between the answer and the server's start: the server does not take the editor's word for it.
  vim.fn.writefile({ "[document_loaders]", 'md = "sh -c id"' }, dir .. "/ragls.toml")
  cfg.settings = { ragls = settings }
  cfg.init_options = vim.tbl_extend("force", vim.deepcopy(settings), {
    workspaceTrusted = true, workspaceTrustedConfigs = { [dir] = digest } })
  local id = vim.lsp.start(cfg, { attach = false })
  local client = vim.lsp.get_client_by_id(id)
  local err = H.wait_for(function()
    if not client.initialized then
      return nil
    end
    for _, e in ipairs(H.request_sync(client, "rag/status", vim.empty_dict()).result.errors or {}) do
      if e.path == dir .. "/ragls.toml" then
        return e.message
      end
    end
  end, 60000, "rag/status naming the changed ragls.toml")
  H.contains(err, "is not trusted, so these settings were ignored: document_loaders")
  -- The user edits the file in Neovim and saves it: vim.secure asks about that version (allowed here beforehand,
  -- so there is no prompt to answer) and the server is told its hash: the file applies again.
  vim.cmd.edit(vim.fn.fnameescape(dir .. "/ragls.toml"))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "[document_loaders]", 'md = "sh -c date"' })
  vim.secure.trust({ action = "allow", bufnr = 0 }) -- the version about to be written
  H.with_ui(function() vim.cmd("silent write") end)
  H.wait_for(function()
    for _, e in ipairs(H.request_sync(client, "rag/status", vim.empty_dict()).result.errors or {}) do
      if e.path == dir .. "/ragls.toml" then
        return false
      end
    end
    return true
  end, 60000, "the saved, allowed ragls.toml trusted again (no notice in rag/status)")
  client:stop(true)
end)

H.it(":RagTrust asks again about a ragls.toml you denied, and the running server applies it at once", function()
  local proj = vim.fn.tempname() .. "-trust"
  vim.fn.mkdir(proj, "p")
  proj = vim.fs.normalize(vim.uv.fs_realpath(proj))
  vim.fn.writefile({ "Wombats dig burrows at dusk." }, proj .. "/notes.md")
  -- a setting that needs trust (a document loader runs a program); Neovim's trust database says "deny"
  vim.fn.writefile({ "[retrieval]", "top_k = 3", "", "[document_loaders]", 'txt = "cat $1"' }, proj .. "/ragls.toml")
  vim.o.eventignore = "all"
  local buf = vim.fn.bufadd(proj .. "/ragls.toml")
  vim.fn.bufload(buf)
  vim.secure.trust({ action = "deny", bufnr = buf })
  vim.api.nvim_buf_delete(buf, { force = true })
  vim.o.eventignore = ""
  vim.cmd.edit(vim.fn.fnameescape(proj .. "/notes.md"))
  local client = H.wait_for(function()
    local c = vim.lsp.get_clients({ name = "ragls", bufnr = 0 })[1]
    return c and c.initialized and c
  end, 60000, "the project's server")
  local function warning()
    for _, e in ipairs(H.request_sync(client, "rag/status", vim.empty_dict()).result.errors or {}) do
      if e.path == proj .. "/ragls.toml" then
        return e.message
      end
    end
    return false
  end
  H.contains(H.wait_for(warning, 30000, "the untrusted ragls.toml's warning"), "document_loaders")
  -- The server's notice at start (window/showMessage) said to run `ragls trust DIR` in a shell, which applies only
  -- once the server restarts: rag/status has it as the file's warning with its how-to-trust end, said the Neovim way.
  local notice = H.wait_for(function() return H.notes_matching("so these settings were ignored: document_loaders")[1] end,
    30000, "the server's notice")
  H.ok(vim.endswith(notice.msg, "; read the file, then run :RagTrust to use them")
    and not notice.msg:find("ragls trust", 1, true), notice.msg)
  H.notes = {}
  -- (a)llow at vim.secure's question: `nvim -l` runs in silent mode, where confirm() answers its default (ignore)
  -- without asking, so the key the user presses is given here; the question is recorded
  local asked, real_confirm = {}, vim.fn.confirm
  vim.fn.confirm = function(msg, choices)
    table.insert(asked, { msg = msg, choices = choices })
    return 4
  end
  local ok, allowed = pcall(H.with_ui, function() return require("ragls").trust() end)
  vim.fn.confirm = real_confirm
  assert(ok, allowed)
  H.eq({ { msg = proj .. "/ragls.toml is not trusted.", choices = "&ignore\n&view\n&deny\n&allow" } }, asked,
    "asked once, though denied before")
  H.eq(true, allowed, ":RagTrust")
  H.ok(H.notes_matching("ragls.toml allowed: all its settings apply now")[1], vim.inspect(H.notes))
  H.wait_for(function() return warning() == false end, 60000, "the server applying the whole file (no warning)")
  vim.cmd("RagStatus")
  H.screenshot("neovim-ragtrust-status")
  vim.cmd("close")
  client:stop(true)
end)

H.it("the trust question lists what allowing the ragls.toml lets it set; one that only tunes retrieval asks nothing",
  function()
  local proj = vim.fs.normalize(vim.fn.tempname() .. "-ask")
  vim.fn.mkdir(proj, "p")
  proj = vim.fs.normalize(vim.uv.fs_realpath(proj))
  vim.fn.writefile({ "[retrieval]", "top_k = 3", "", "[generation]", 'backend = "openai"',
    'base_url = "http://127.0.0.1:9/v1"', "", "[document_loaders]", 'txt = "cat $1"' }, proj .. "/ragls.toml")
  local asked, during, real_confirm = {}, nil, vim.fn.confirm
  vim.fn.confirm = function(msg) -- (as in :RagTrust's test: `nvim -l` would answer for the user)
    table.insert(asked, msg)
    during = vim.o.messagesopt
    return 1 -- (i)gnore
  end
  vim.cmd("messages clear")
  local ok, cfg = pcall(H.with_ui, function()
    -- (the screenshot UI turns hit-enter prompts off; a user's Neovim has them)
    local ui_messagesopt = vim.o.messagesopt
    vim.o.messagesopt = "hit-enter,history:500"
    local c = require("ragls.server").client_config(proj)
    c.messagesopt_after, vim.o.messagesopt = vim.o.messagesopt, ui_messagesopt
    return c
  end)
  vim.fn.confirm = real_confirm
  assert(ok, cfg)
  H.eq({ proj .. "/ragls.toml is not trusted." }, asked, "asked")
  -- The line above the question said "allow = its LLM/key/loader settings apply": which ones, and to what, it
  -- did not say. Each setting with its value now, one a line above the question (tried in tmux: they stay there,
  -- with 'messagesopt' wait:0 in place of a hit-enter prompt before the question), and in :messages.
  local text = vim.fn.execute("messages")
  H.contains(text, "ragls: allowing " .. vim.fn.fnamemodify(proj .. "/ragls.toml", ":~")
    .. " lets it set (otherwise it only tunes retrieval):\n")
  H.contains(text, '\n  generation.base_url = "http://127.0.0.1:9/v1"\n')
  H.contains(text, '\n  document_loaders.txt = "cat $1"')
  H.ok(not text:find("top_k", 1, true), text)
  H.ok(during and during:find("^wait:0"), "no hit-enter prompt before the question: " .. tostring(during))
  H.eq("hit-enter,history:500", cfg.messagesopt_after, "'messagesopt' set back")
  H.eq(nil, cfg.init_options.workspaceTrusted, "ignored: the trust store decides")
  -- A file that only tunes retrieval applies whole untrusted: there is nothing to decide, and nothing is asked.
  vim.fn.writefile({ "[retrieval]", "top_k = 3" }, proj .. "/ragls.toml")
  asked = {}
  vim.fn.confirm = function(msg)
    table.insert(asked, msg)
    return 1
  end
  ok, cfg = pcall(H.with_ui, function() return require("ragls.server").client_config(proj) end)
  assert(ok, cfg)
  H.eq({}, asked, "not asked")
  -- :RagTrust still asks about it, and says that allowing it changes nothing (not "its LLM settings apply")
  vim.cmd("messages clear")
  ok, cfg = pcall(H.with_ui, function() return require("ragls.trust").trust_root(proj) end)
  vim.fn.confirm = real_confirm
  assert(ok, cfg)
  H.eq({ proj .. "/ragls.toml is not trusted." }, asked, ":RagTrust asked")
  H.contains(vim.fn.execute("messages"), "ragls: it only tunes retrieval: allowing it changes nothing")
end)

H.it("the trust question's answer is asked for beside the first index's estimate, not while Neovim waits", function()
  -- `ragls trust --show` ran synchronously when the server started, before the question: Neovim stood still while
  -- Python started (~0.5 s quiet, seconds under load). The gate starts it beside its `ragls estimate`.
  local proj = vim.fs.normalize(vim.fn.tempname() .. "-ahead")
  vim.fn.mkdir(proj, "p")
  proj = vim.fs.normalize(vim.uv.fs_realpath(proj))
  vim.fn.writefile({ "[document_loaders]", 'txt = "cat $1"' }, proj .. "/ragls.toml")
  vim.fn.writefile({ "# Notes", "", "A page." }, proj .. "/notes.md")
  local rootmod = require("ragls.root")
  local ran, real_system, real_confirm = {}, vim.system, vim.fn.confirm
  vim.system = function(cmd, ...)
    table.insert(ran, table.concat(cmd, " "))
    return real_system(cmd, ...)
  end
  local approved = false
  local ok, err = pcall(H.with_ui, function()
    rootmod.gate(proj, function() approved = true end)
  end)
  assert(ok, err)
  local shows = function()
    return vim.tbl_filter(function(c) return c:find("trust --show --json " .. proj, 1, true) ~= nil end, ran)
  end
  H.eq(1, #shows(), "trust --show started with the estimate: " .. vim.inspect(ran))
  H.ok(vim.iter(ran):any(function(c) return c:find("estimate --json", 1, true) ~= nil end), vim.inspect(ran))
  H.wait_for(function() return approved end, 60000, "the estimate's decision")
  local asked = {}
  vim.fn.confirm = function(msg)
    table.insert(asked, msg)
    return 1 -- (i)gnore
  end
  vim.cmd("messages clear")
  local cfg
  ok, cfg = pcall(H.with_ui, function() return require("ragls.server").client_config(proj) end)
  vim.fn.confirm, vim.system = real_confirm, real_system
  assert(ok, cfg)
  H.eq({ proj .. "/ragls.toml is not trusted." }, asked, "asked")
  H.eq(1, #shows(), "the question used the answer started ahead: " .. vim.inspect(ran))
  H.contains(vim.fn.execute("messages"), '\n  document_loaders.txt = "cat $1"')
end)

H.finish()
