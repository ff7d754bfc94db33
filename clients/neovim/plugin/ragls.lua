-- ragls: user commands and autocmds. Modules load only when a command or autocmd runs.
if vim.g.loaded_ragls then
  return
end
vim.g.loaded_ragls = true

if vim.fn.has("nvim-0.10") ~= 1 then
  vim.notify("ragls needs Neovim 0.10 or newer", vim.log.levels.ERROR)
  return
end

local group = vim.api.nvim_create_augroup("ragls", { clear = true })

vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
  group = group,
  desc = "ragls: attach the client to file buffers",
  callback = function(args)
    -- Deferred so that filetype detection has run.
    vim.schedule(function()
      require("ragls").attach(args.buf)
    end)
  end,
})

vim.api.nvim_create_autocmd("LspAttach", {
  group = group,
  desc = "ragls: buffer keymaps",
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == "ragls" then
      require("ragls").on_attach(args.buf)
    end
  end,
})

vim.api.nvim_create_autocmd("BufWritePost", {
  group = group,
  pattern = "ragls.toml",
  desc = "ragls: ask vim.secure about the saved ragls.toml of a running server and tell the server",
  callback = function(args)
    if package.loaded["ragls.server"] then -- no client can be running before ragls.server is loaded
      require("ragls.trust").retrust(args.buf)
    end
  end,
})

local function complete_rag(arglead)
  return require("ragls.rags").complete(arglead)
end

vim.api.nvim_create_user_command("RagAsk", function(opts)
  local range = opts.range > 0 and { opts.line1, opts.line2 } or nil
  local rag, question = require("ragls.rags").split_args(opts.args)
  require("ragls").ask(question, { range = range, rag = rag })
end, {
  nargs = "*",
  range = true,
  complete = complete_rag,
  desc = "ragls: ask a question (rag=NAME picks the knowledge base; with a range: about the selected lines)",
})

vim.api.nvim_create_user_command("RagQuery", function(opts)
  local rag, text = require("ragls.rags").split_args(opts.args)
  require("ragls").query(text, { quickfix = opts.bang, rag = rag })
end, { nargs = "*", bang = true, complete = complete_rag,
  desc = "ragls: search in a live picker (!: into the quickfix list; rag=NAME: a named RAG)" })

vim.api.nvim_create_user_command("RagUse", function()
  require("ragls.rags").use()
end, { nargs = 0, desc = "ragls: pick the knowledge base (RAG) questions go to" })

vim.api.nvim_create_user_command("RagLast", function()
  require("ragls").last()
end, { nargs = 0, desc = "ragls: reopen the last answer" })

vim.api.nvim_create_user_command("RagIndex", function(opts)
  require("ragls").index_folder(opts.args)
end, { nargs = "?", complete = "dir", desc = "ragls: index this folder (default: the file's directory), even outside a project" })

vim.api.nvim_create_user_command("RagRebuild", function()
  require("ragls").rebuild()
end, { nargs = 0, desc = "ragls: rebuild the index" })

vim.api.nvim_create_user_command("RagStatus", function()
  require("ragls").status()
end, { nargs = 0, desc = "ragls: index status" })

vim.api.nvim_create_user_command("RagTrust", function()
  require("ragls").trust()
end, { nargs = 0, desc = "ragls: allow this project's ragls.toml (asks, as 'exrc' does), applied at once" })

vim.api.nvim_create_user_command("RagCommit", function(opts)
  require("ragls").commit({ staged = not opts.bang })
end, { nargs = 0, bang = true, desc = "ragls: commit message from the staged diff (!: from all tracked changes)" })

-- <Plug> mappings (|ragls-mappings|); `keymaps` in setup() maps keys to them.
vim.keymap.set({ "n" }, "<Plug>(ragls-ask)", "<cmd>RagAsk<CR>", { desc = "ragls: ask" })
vim.keymap.set({ "x" }, "<Plug>(ragls-ask)", ":RagAsk<CR>", { silent = true, desc = "ragls: ask about the selection" })
vim.keymap.set("n", "<Plug>(ragls-query)", "<cmd>RagQuery<CR>", { desc = "ragls: search (picker)" })
vim.keymap.set("n", "<Plug>(ragls-status)", "<cmd>RagStatus<CR>", { desc = "ragls: status" })
vim.keymap.set("n", "<Plug>(ragls-commit)", "<cmd>RagCommit<CR>", { desc = "ragls: commit message" })
vim.keymap.set("n", "<Plug>(ragls-last)", "<cmd>RagLast<CR>", { desc = "ragls: last answer" })

vim.api.nvim_create_user_command("RagSetup", function(opts)
  require("ragls.setup_llm").run(opts.args)
end, {
  nargs = "?",
  desc = "ragls: choose who writes answers (local LLM servers found running, a base URL tested, or none)",
})

vim.api.nvim_create_user_command("RagChat", function(opts)
  require("ragls.chat").command(opts.args)
end, {
  nargs = "*",
  complete = function()
    return { "new", "list" }
  end,
  desc = "ragls: open the chat (`new`: start a new thread; `list`: continue an earlier one; text: ask it)",
})
