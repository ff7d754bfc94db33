-- Config for `vim.lsp.config`/`vim.lsp.enable("ragls")` (Neovim 0.11+). The plugin itself starts the client with
-- the options given to require("ragls").setup(); use this file only if you manage LSP configs yourself, and then
-- call require("ragls").setup({ autostart = false }) so the two do not both start a server.
return {
  -- setup()'s `cmd` (default { "ragls", "serve" }), started so that a server that fails is reported once, by ragls
  -- (|ragls-server-exit|); a `cmd` list given to vim.lsp.config() works too, with Neovim's own notice beside it
  cmd = function(dispatchers, config)
    return require("ragls.server").server_cmd(require("ragls.config").values.cmd)(dispatchers, config)
  end,
  root_markers = { "ragls.toml", ".git" },
  settings = { ragls = {} },
  handlers = {
    ["$/progress"] = function(...)
      return require("ragls.rpc").progress_handler(...)
    end,
  },
  on_exit = function(...)
    return require("ragls.server").on_exit(...)
  end,
  -- the statusline says "ragls: starting the server" until it answers initialize, as when the plugin starts it
  before_init = function(...)
    return require("ragls.server").before_init(...)
  end,
  on_init = function(...)
    return require("ragls.server").on_init(...)
  end,
}
