-- Users who start the server Neovim 0.11's own way: `vim.lsp.enable("ragls")` with the plugin's lsp/ragls.lua and
-- require("ragls").setup({ autostart = false }). The statusline says the server is starting until it answers
-- initialize (as when the plugin starts it), then that it is attached; :RagAsk answers through that client.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace({ autostart = false })
local ragls = require("ragls")

if vim.fn.has("nvim-0.11") ~= 1 then
  H.it("vim.lsp.enable needs Neovim 0.11", function()
    H.out("# SKIP Neovim " .. tostring(vim.version()) .. " has no vim.lsp.enable")
  end)
  H.finish()
end

-- (lsp/ragls.lua's `cmd` starts setup()'s: the test server, H.load_plugin_for_workspace)
vim.lsp.enable("ragls")
vim.o.laststatus = 2
vim.o.statusline = "%f %=%{v:lua.require'ragls'.statusline()} "

H.it("vim.lsp.enable: the statusline says 'starting the server' until it answers, then the client is attached",
  function()
    vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")))
    H.wait_for(function() return ragls.statusline() == "ragls: starting the server" end, 5000,
      "the statusline while the server starts (it said " .. vim.inspect(ragls.statusline()) .. ")")
    H.eq(0, #vim.lsp.get_clients({ name = "ragls" }), "said before the server answered initialize")
    H.screenshot("neovim-lsp-enable-starting")
    H.wait_for(function() return #vim.lsp.get_clients({ name = "ragls", bufnr = 0 }) == 1 end, 90000,
      "the client attached")
    H.ok(ragls.statusline() ~= "ragls: starting the server", "not 'starting' once it answered: "
      .. ragls.statusline())
    H.eq(1, #vim.lsp.get_clients({ name = "ragls" }), "one server: the plugin started none of its own")
  end)

H.it("vim.lsp.enable: :RagAsk answers through Neovim's client", function()
  vim.cmd("RagAsk How long is the frobnicator timeout?")
  local win = H.wait_for(function() return H.floats()[1] end, 10000, "the answer float")
  local buf = vim.api.nvim_win_get_buf(win)
  local result = H.wait_for(function() return vim.b[buf].ragls_result end, 90000, "the answer")
  H.ok(#result.sources > 0, "answered with sources")
  H.eq(1, #vim.lsp.get_clients({ name = "ragls" }), "still one server")
end)

H.finish()
