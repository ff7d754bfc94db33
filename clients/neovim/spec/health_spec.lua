-- :checkhealth ragls with the real server running on the fixture workspace.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
H.open_and_wait_indexed("README.md", 3)

H.it(":checkhealth ragls reports OK for Neovim, config, server and index", function()
  vim.cmd("checkhealth ragls")
  H.eq("checkhealth", vim.bo.filetype, "health buffer")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(lines, "\n")
  H.contains(text, "OK Neovim 0.")
  H.contains(text, "OK setup() options are valid")
  H.contains(text, "OK server command found: " .. table.concat(H.server_cmd, " "))
  H.contains(text, "OK server version: ragls ")
  H.contains(text, "OK generation backend: none")
  H.contains(text, ("OK %s: 3 files, "):format(vim.fs.normalize(vim.uv.fs_realpath(H.workspace))))
  for _, l in ipairs(lines) do
    H.ok(not l:find("ERROR", 1, true) and not l:find("WARNING", 1, true), "no error or warning: " .. l)
  end
end)

H.finish()
