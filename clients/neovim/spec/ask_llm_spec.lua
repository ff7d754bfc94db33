-- :RagAsk streaming through a real LLM SDK path: the server uses the openai backend against the loopback LLM
-- server of tests/llm_server.py (started by tests/clients/test_neovim.py for `*_llm_spec.lua`). The fake model
-- answers "The frobnicator timeout defaults to 42 seconds [1]." word by word, and waits 20 s before answering a
-- question containing "(please-wait)", and fails (HTTP 503 "the model is overloaded") for one with "(please-fail)".
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)
local rpc = require("ragls.rpc")

local function close_floats()
  for _, w in ipairs(H.floats()) do
    vim.api.nvim_win_close(w, true)
  end
end

H.it(":RagAsk streams the answer into the float as deltas arrive, then lists the sources", function()
  close_floats()
  local deltas, snapshots = {}, {}
  local open_stream = rpc.open_stream
  rpc.open_stream = function(on_delta)
    return open_stream(function(delta)
      on_delta(delta)
      table.insert(deltas, delta)
      local w = H.floats()[1]
      if w then
        table.insert(snapshots, table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 2, -1, false),
          "\n"))
      end
    end)
  end
  vim.cmd("RagAsk How long is the frobnicator timeout?")
  local ok, win = pcall(H.wait_for, function()
    local w = H.floats()[1]
    return w and vim.b[vim.api.nvim_win_get_buf(w)].ragls_result ~= nil and w
  end, 60000, "the answer")
  rpc.open_stream = open_stream
  assert(ok, win)
  local buf = vim.api.nvim_win_get_buf(win)
  local result = vim.b[buf].ragls_result
  H.eq("The frobnicator timeout defaults to 42 seconds [1].", result.answer, "final answer")
  H.eq("test-model", result.model, "model")
  H.ok(#deltas > 3, "several deltas: " .. vim.inspect(deltas))
  H.eq(result.answer, table.concat(deltas), "deltas add up to the answer")
  -- While streaming the float showed each growing prefix of the answer.
  local so_far = ""
  for i, d in ipairs(deltas) do
    so_far = so_far .. d
    H.eq(so_far, snapshots[i], "float text after delta " .. i)
  end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  -- (finished: the space before "[1]" a no-break one, so the float never wraps between them: ragls.code_wrap)
  H.eq("The frobnicator timeout defaults to 42 seconds" .. require("ragls.code_wrap").NBSP .. "[1].", lines[3],
    "answer line after streaming")
  local answer_text = require("ragls.answer_text")
  -- (a source line wider than the float wraps after a "/" of its path or at a space: answer_text.wrap_source_line)
  local unwrapped = table.concat(lines, "\n"):gsub("/\n%s+", "/"):gsub("\n +", " ")
  H.contains(unwrapped, answer_text.source_line(result.sources[1], answer_text.SHOWN_RANGE_DASH), "source [1] listed")
  H.eq({ { n = 1, supported = true } }, result.citations, "citation [1] supported")
end)

H.it("<CR> on [1] in the streamed answer opens source 1", function()
  local win = H.floats()[1]
  local buf = vim.api.nvim_win_get_buf(win)
  local result = vim.b[buf].ragls_result
  local col = vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1]:find("[1]", 1, true)
  vim.api.nvim_win_set_cursor(win, { 3, col })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(result.sources[1].path, H.rel(vim.api.nvim_buf_get_name(0)), "file")
  local src = result.sources[1]
  local at = (src.quoteRanges and src.quoteRanges[1]) or src.focusRange or src.range
  H.eq(at.start.line + 1, vim.api.nvim_win_get_cursor(0)[1],
    "line (the answering passage, else the focus lines, when the server sends them)")
end)

H.it("closing the float while the answer is pending cancels the request quietly", function()
  close_floats()
  H.notes = {}
  local sent, response_err
  local client_request = rpc.client_request
  rpc.client_request = function(c, method, params, handler, bufnr)
    local wrapped = handler
    if method == "rag/ask" then
      wrapped = function(err, ...)
        response_err = err or "no error"
        return handler(err, ...)
      end
    end
    local ok, id = client_request(c, method, params, wrapped, bufnr)
    if method == "rag/ask" then
      sent = id
    end
    return ok, id
  end
  vim.cmd("RagAsk (please-wait) What does the frobnicator do?")
  rpc.client_request = client_request
  local win = H.wait_for(function()
    return H.floats()[1]
  end, 10000, "the float")
  H.ok(sent and client.requests[sent], "request pending")
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_feedkeys("q", "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  -- Neovim swallows the RequestCancelled reply (the handler is not called) but drops the request from
  -- client.requests when any reply arrives; the fake model answers only after 20 s, so a reply within 10 s is
  -- the server's cancellation acknowledgement.
  H.wait_for(function()
    return client.requests[sent] == nil
  end, 10000, "the server to acknowledge the cancellation")
  H.eq(nil, response_err, "the answer handler was not called")
  -- The server answers the next question normally, and nothing was reported as an error.
  local resp = H.request_sync(client, "rag/query", { query = "backups" })
  H.eq(nil, resp.err, "server still answers")
  for _, n in ipairs(H.notes) do
    H.ok(n.level < vim.log.levels.WARN, "no warning or error: " .. n.msg)
  end
end)

H.it("an LLM that fails: the float shows its error above the extractive answer, and `r` asks again", function()
  close_floats()
  local question = "(please-fail) How long is the frobnicator timeout?"
  vim.cmd("RagAsk " .. question)
  local win = H.wait_for(function()
    local w = H.floats()[1]
    return w and vim.b[vim.api.nvim_win_get_buf(w)].ragls_result ~= nil and w
  end, 60000, "the answer")
  local buf = vim.api.nvim_win_get_buf(win)
  local result = vim.b[buf].ragls_result
  H.ok(result.error and result.error.message:find("overloaded", 1, true), "the LLM error: " .. vim.inspect(result.error))
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local text = table.concat(lines, "\n")
  H.eq("> **The LLM failed:** ", lines[3]:sub(1, 22), "error first")
  H.contains(lines[3], "overloaded", "the error text")
  H.contains(lines[4], "`r` retries", "the retry key")
  H.contains(text, "42 seconds", "the extractive answer below it")
  -- what it is, said once in the client's words: the server's label line (rag/ask `label`) is left out
  H.ok(type(result.label) == "string" and vim.startswith(result.answer, result.label), vim.inspect(result.label))
  H.eq("_Below: the passages of your docs that match best (no LLM)._", lines[6], "what follows the error")
  H.ok(not text:find("Extractive answer", 1, true), "no label line: " .. text)
  H.contains(lines[#lines], "_extractive (the LLM failed) · ", "the footer names no LLM")
  H.screenshot("neovim-ask-llm-error")
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_feedkeys("r", "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "the old float closed")
  local again = H.wait_for(function()
    local w = H.floats()[1]
    return w and vim.b[vim.api.nvim_win_get_buf(w)].ragls_result ~= nil and w
  end, 60000, "the answer asked again")
  H.eq("## " .. question, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(again), 0, 1, false)[1], "same question")
end)

H.it(":RagSetup without a URL names the choice in use in its prompt", function()
  close_floats()
  local select, prompt = vim.ui.select, nil
  vim.ui.select = function(items, opts, on_choice) -- the user's pick UI: read what it is asked, then cancel
    prompt = opts.prompt
    on_choice(nil)
  end
  local ok, err = pcall(function()
    vim.cmd("RagSetup")
    H.wait_for(function() return prompt end, 20000, "the choice of who writes answers")
  end)
  vim.ui.select = select
  assert(ok, err)
  H.eq("Who should write ragls answers? (now: openai · test-model)", prompt, "the prompt")
end)

H.it(":RagSetup {url}: tests the server, takes its model, applies it at once and shows the setup{} snippet", function()
  close_floats()
  local toml = table.concat(vim.fn.readfile(vim.fs.joinpath(H.workspace, "ragls.toml")), "\n")
  local url = toml:match('base_url = "([^"]+)"')
  H.ok(url, "the loopback LLM server's URL")
  -- A dead URL: the connection test fails with the server's reason; nothing changes.
  local probe = vim.uv.new_tcp()
  probe:bind("127.0.0.1", 0)
  local dead = ("http://127.0.0.1:%d/v1"):format(probe:getsockname().port)
  probe:close()
  H.notes = {}
  require("ragls.setup_llm").run(dead)
  H.wait_for(function() return #H.notes_matching("connection test failed") > 0 end, 20000, "the failed test")
  H.contains(H.notes_matching("connection test failed")[1].msg, dead .. "/models")
  H.eq(2, vim.fn.exists(":RagSetup"), ":RagSetup {url} runs this")
  local chosen
  require("ragls.setup_llm").run(url, function(generation) chosen = generation end)
  H.wait_for(function() return chosen end, 20000, "the choice")
  H.eq({ backend = "external", base_url = url, model = "test-model" }, chosen, "no key: the external backend")
  H.wait_for(function()
    return H.request_sync(client, "rag/status", vim.empty_dict()).result.generation.backend == "external"
  end, 20000, "the server to use it without a restart")
  local snippet = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(H.floats()[1]), 0, -1, false)
  H.contains(table.concat(snippet, "\n"), ('generation = { backend = "external", base_url = "%s", model = "test-model" }')
    :format(url), "the snippet to keep")
end)

H.it("codecompanion.nvim (real): a chat calls the ragls tool and shows the cited lines", function()
  local repo = vim.fs.dirname(vim.fs.dirname(H.plugin_dir))
  local plugins = os.getenv("RAGLS_NVIM_PLUGINS") or vim.fs.joinpath(vim.fs.dirname(repo), "shared", "nvim-plugins")
  local cc, plenary = vim.fs.joinpath(plugins, "codecompanion.nvim"), vim.fs.joinpath(plugins, "plenary.nvim")
  if vim.fn.isdirectory(cc) == 0 or vim.fn.isdirectory(plenary) == 0 then
    H.out("# SKIP codecompanion.nvim / plenary.nvim not found in " .. plugins)
    return
  end
  close_floats()
  vim.opt.runtimepath:prepend(plenary)
  vim.opt.runtimepath:prepend(cc)
  local toml = table.concat(vim.fn.readfile(vim.fs.joinpath(H.workspace, "ragls.toml")), "\n")
  local root = toml:match('base_url = "([^"]+)"'):gsub("/v1/?$", "")
  local ragls_cc = require("ragls.codecompanion")
  require("codecompanion").setup({
    adapters = { http = {
      ragls_test = function()
        return require("codecompanion.adapters").extend("openai_compatible", {
          env = { url = root, api_key = "test-key" },
          schema = { model = { default = "test-model" } },
        })
      end,
    } },
    interactions = { chat = {
      adapter = "ragls_test",
      tools = { ragls = ragls_cc.tool_config() },
      slash_commands = { ragls = ragls_cc.slash_command_config() },
    } },
  })
  vim.cmd("CodeCompanionChat")
  local chat = H.wait_for(function() return require("codecompanion").last_chat() end, 10000, "the chat")
  chat:add_buf_message({ role = "user", content = "@{ragls} (use-ragls) How long is the frobnicator timeout?" })
  chat:submit()
  local text
  H.wait_for(function()
    text = table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), "\n")
    return text:find("the timeout defaults to 42 seconds", 1, true) ~= nil
  end, 60000, "the answer after the tool call")
  -- The user sees the cited lines the tool found; the LLM got them with paths and lines.
  H.contains(text, "ragls: ", "the tool's output in the chat")
  H.ok(text:find("%[1%] guide/frobnicator%.md:%d+"), "the cited lines shown: " .. text)
  H.contains(text, "From the docs (cited)", "the tool result reached the LLM with its citations")
  H.screenshot("codecompanion-ragls-tool")
end)

H.it("codecompanion.nvim (real): /ragls asks for a search and adds the cited passages to the chat's context", function()
  local cc = package.loaded["codecompanion"]
  if not cc then
    H.out("# SKIP codecompanion.nvim not loaded (see the test above)")
    return
  end
  vim.cmd("CodeCompanionChat")
  local chat = H.wait_for(function()
    local c = cc.last_chat()
    return c and vim.api.nvim_get_current_buf() == c.bufnr and c
  end, 10000, "a new chat")
  -- /ragls as the completion menu offers it (codecompanion's own list of slash commands and its executor)
  local item = vim.iter(require("codecompanion.providers.completion").slash_commands()):find(function(i)
    return i.label == "/ragls"
  end)
  H.ok(item, "/ragls is in codecompanion's slash command list")
  H.contains(item.detail, "ragls")
  local input = vim.ui.input
  local prompted
  vim.ui.input = function(opts, on_confirm)
    prompted = opts.prompt
    on_confirm("frobnicator timeout")
  end
  H.notes = {}
  require("codecompanion.interactions.chat.slash_commands").new():execute(item, chat)
  vim.ui.input = input
  H.contains(prompted, "ragls")
  local added = H.wait_for(function()
    for _, m in ipairs(chat.messages) do
      if type(m.content) == "string" and m.content:find("guide/frobnicator.md:", 1, true) then
        return m
      end
    end
  end, 20000, "the passages in the chat's messages")
  H.contains(added.content, "defaults to 42 seconds", "the passage text for the LLM")
  H.contains(added.content, "<passage path=\"guide/frobnicator.md\"", "quoted as data, with its path")
  -- the user sees what was added: the context item in the chat buffer and a one-line note naming the best source
  local buftext = table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), "\n")
  H.contains(buftext, "<ragls>frobnicator timeout</ragls>", "the context item shown in the chat")
  local note = H.notes_matching("ragls: added")[1]
  H.ok(note, "a note says what was added")
  H.ok(note.msg:find("guide/frobnicator%.md:%d+"), "the note names the best passage: " .. note.msg)
  H.ok(not note.msg:find("\n"), "one line")
  -- the LLM gets the passages before the question
  chat:add_buf_message({ role = "user", content = "(ragls-context) How long is the frobnicator timeout?" })
  chat:submit()
  H.wait_for(function()
    buftext = table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), "\n")
    -- the reply streams word by word: wait for its last words, so the check below sees the whole of it
    return buftext:find("42 seconds [1].", 1, true) ~= nil
  end, 60000, "the whole answer")
  H.contains(buftext, "From the passages you added (cited)", "the passages reached the LLM")
  H.screenshot("codecompanion-ragls-slash-command")
end)

H.it("the server dies while an answer is pending: the float says so (no notification besides); the next :RagAsk restarts it",
  function()
  close_floats()
  local before = #H.notes
  vim.cmd("RagAsk (please-wait) What does the frobnicator do?")
  local win = H.wait_for(function()
    return H.floats()[1]
  end, 10000, "the float")
  local buf = vim.api.nvim_win_get_buf(win)
  -- The LLM takes 20 s: after 2 s the placeholder counts the seconds.
  H.wait_for(function()
    return (vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1] or ""):match("^_… waiting for the answer: %d+ s %(q stops it%)_$")
  end, 10000, "the placeholder to count the seconds")
  local killed
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local f = io.open(("/proc/%d/cmdline"):format(pid), "rb")
    local cmdline = f and f:read("*a") or ""
    if f then
      f:close()
    end
    if cmdline:find("serve", 1, true) then
      vim.uv.kill(pid, "sigkill")
      killed = pid
    end
  end
  H.ok(killed, "found the server process")
  H.wait_for(function()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find("server stopped", 1, true)
  end, 10000, "the float to say the server stopped")
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  H.ok(text:find("killed by signal 9", 1, true), "says how: " .. text)
  H.ok(not text:find("^%s*…%s*$"), "no placeholder left")
  H.contains(text, "**Error:** answer failed: the server stopped", "the float says it (titled ragls: no 'ragls: ')")
  -- The float says it: a notification besides repeated it, and (wider than the command line) stopped on a
  -- hit-enter prompt over the float; so did Neovim's own "Client ragls quit with exit code 0 and signal 9 ...".
  vim.wait(300, function() return false end) -- (vim.lsp says it in a step it schedules)
  H.eq({}, H.notes_matching("quit with exit code"), "no notice of Neovim's beside the float")
  local said = {}
  for i = before + 1, #H.notes do
    if H.notes[i].level >= vim.log.levels.WARN and H.notes[i].msg:find("^ragls") then
      table.insert(said, H.notes[i].msg)
    end
  end
  H.eq({}, said, "no notification")
  local footer = vim.iter(vim.api.nvim_win_get_config(win).footer or {}):map(function(c) return c[1] end):join("")
  H.eq(" r ask again · q close ", footer, "the keys that do something for a failed answer")
  close_floats()
  local readme = vim.fn.bufnr(vim.fs.normalize(vim.uv.fs_realpath(H.workspace)) .. "/README.md")
  vim.api.nvim_set_current_buf(readme)
  -- The statusline was blank: no client attached any more and the buffer is inside a project.
  H.eq("ragls: stopped (killed by signal 9)", require("ragls").statusline(), "statusline after the crash")
  vim.cmd("RagAsk How long is the frobnicator timeout?")
  local ok, answered = pcall(H.wait_for, function()
    local w = H.floats()[1]
    return w and vim.b[vim.api.nvim_win_get_buf(w)].ragls_result ~= nil and w
  end, 90000, "the answer from a restarted server")
  H.ok(ok, answered)
  close_floats()
  vim.api.nvim_set_current_buf(readme)
  H.eq("ragls", require("ragls").statusline(), "the restarted server has the buffers of the stopped one")
end)

H.it("a server that dies with nothing pending says so once, and the statusline until a :Rag* command restarts it",
  function()
  local readme = vim.api.nvim_get_current_buf()
  H.notes = {}
  H.ok(vim.lsp.get_clients({ name = "ragls", bufnr = readme })[1], "attached")
  -- What the statusline says each time ragls redraws it: on the screen, after the crash, it kept "ragls" (the exited
  -- client is still listed while its exit is handled) until something else redrew it.
  local progress = require("ragls.progress")
  local redraw, drawn = progress.redraw_statuslines, {}
  progress.redraw_statuslines = function()
    table.insert(drawn, require("ragls").statusline())
    return redraw()
  end
  local killed = 0
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local f = io.open(("/proc/%d/cmdline"):format(pid), "rb")
    if f and f:read("*a"):find("serve", 1, true) then
      vim.uv.kill(pid, "sigkill")
      killed = killed + 1
    end
    if f then
      f:close()
    end
  end
  H.eq(1, killed, "the server process")
  local note = H.wait_for(function()
    return H.notes_matching("stopped (killed by signal 9)")[1]
  end, 10000, "a notification")
  H.eq(vim.log.levels.WARN, note.level, "a warning")
  progress.redraw_statuslines = redraw
  H.eq("ragls: stopped (killed by signal 9)", drawn[#drawn], "the statusline as ragls redrew it after the crash")
  -- one line of the cmdline, as Neovim's own vim.notify echoes it: a longer one (it named the log file too) waited
  -- for Enter over whatever you were typing; the longest wording that fits (here 80 columns, |v:echospace| 68)
  H.ok(vim.fn.strdisplaywidth(note.msg) <= vim.v.echospace, ("fits the cmdline (%d): %s"):format(vim.v.echospace,
    note.msg))
  H.eq("ragls: server stopped (killed by signal 9); :Rag* restarts it", note.msg, "the wording that fits")
  vim.o.columns = 140
  H.eq("ragls: the server stopped (killed by signal 9); run any :Rag* command to restart it (see :checkhealth ragls)",
    require("ragls.server").stopped_notice("killed by signal 9"), "wider: the longest that fits")
  vim.o.columns = 80
  H.eq("ragls: stopped (killed by signal 9)", require("ragls").statusline(), "statusline")
  vim.o.statusline = "%f %=%{v:lua.require'ragls'.statusline()} "
  H.screenshot("neovim-statusline-stopped")
  -- on the screen of a user without a notification plugin: the cmdline's one row, the statusline above it
  local rows = H.with_ui(function()
    H.real_notify(note.msg, note.level)
    vim.cmd("redraw")
    return H.screen_text()
  end)
  H.eq(note.msg, vim.trim(rows[#rows]), "the last row")
  H.ok(rows[#rows - 1]:find("ragls: stopped (killed by signal 9)", 1, true), "the statusline above it: " .. rows[#rows - 1])
  if os.getenv("RAGLS_TEST_SCREENSHOTS") then -- (a screenshot's own UI would redraw the cmdline empty)
    vim.fn.writefile(rows, vim.fs.joinpath(os.getenv("RAGLS_TEST_SCREENSHOTS"), "neovim-server-stopped-notice.txt"))
  end
  vim.cmd("RagStatus")
  H.wait_for(function() return require("ragls").statusline() == "ragls" end, 60000, "the restarted server attached")
  H.eq(1, #H.notes_matching("stopped (killed by signal 9)"), "said once")
  H.eq({}, H.notes_matching("quit with exit code"), "not again by Neovim (ragls-server-exit)")
end)

H.finish()
