-- A folder is untrusted input: a `ragls/` package planted at a project's root never runs. The server command is
-- `python -m ragls serve` and Neovim's current directory is the project, as for a user who cloned it and ran `nvim`
-- there; `python -m` imports from its working directory first, so the planted package ran instead of ragls (the
-- server, its `estimate` before a first index, its `--version` in :checkhealth) until they started elsewhere.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local marker = vim.fn.tempname() .. "-planted-ran"
local plant = { ("open(%q, 'a').write('ran\\n')"):format(marker) }
vim.fn.mkdir(vim.fs.joinpath(H.workspace, "ragls"), "p")
vim.fn.writefile(plant, vim.fs.joinpath(H.workspace, "ragls", "__init__.py"))
vim.fn.writefile(plant, vim.fs.joinpath(H.workspace, "ragls", "__main__.py"))
H.eq("-m", H.server_cmd[2], "the server command is `python -m ragls serve`")

-- index_confirm_minutes: the first index is measured first (`ragls estimate`), from the same command.
H.load_plugin_for_workspace({ index_confirm_minutes = 10 })
H.eq(vim.fs.normalize(H.workspace), vim.fs.normalize(vim.fn.getcwd()), "Neovim's current directory")

H.it("the server the client starts for the project runs ragls, not the project's `ragls/` package", function()
  local client = H.open_and_wait_indexed("README.md", 3, 90000)
  H.eq(vim.fs.normalize(H.workspace), vim.fs.normalize(client.root_dir), "the project is still the root dir")
  H.ok(type(require("ragls.root").last_estimate) == "table", "ragls estimate answered")
  H.eq(0, vim.fn.filereadable(marker), "the planted package ran")
end)

H.it(":checkhealth ragls runs the server command's --version outside the project too", function()
  vim.fn.delete(marker) -- (left by the first test when it failed)
  vim.cmd("checkhealth ragls")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "server version: ragls", "the health report")
  H.eq(0, vim.fn.filereadable(marker), "the planted package ran")
  H.eq(vim.fs.joinpath(vim.fn.stdpath("cache"), "ragls"), require("ragls.server").spawn_dir(), "where they start")
end)

H.finish()
