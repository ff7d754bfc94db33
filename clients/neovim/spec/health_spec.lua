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
  H.contains(text, "OK embedding model: sentence-transformers/all-MiniLM-L6-v2\n")
  H.contains(text, ("OK %s: 3 files, "):format(vim.fs.normalize(vim.uv.fs_realpath(H.workspace))))
  for _, l in ipairs(lines) do
    H.ok(not l:find("ERROR", 1, true) and not l:find("WARNING", 1, true), "no error or warning: " .. l)
  end
end)

H.it("the embedding model names the bundled fallback, as rag/status reports it", function()
  local label = require("ragls.status_view").embedding_label
  local client = vim.lsp.get_clients({ name = "ragls" })[1]
  local status = H.request_sync(client, "rag/status", vim.empty_dict()).result
  H.eq("path", status.embeddingSource, "the fixture's model comes from its model_path")
  H.eq("sentence-transformers/all-MiniLM-L6-v2", label(status))
  -- What rag/status says offline without the configured model (tests/e2e/test_query.py checks the server side).
  H.eq("sentence-transformers/all-MiniLM-L6-v2 (bundled fallback for BAAI/bge-small-en-v1.5)", label(vim.tbl_extend(
    "force", status, { embeddingSource = "offline-fallback", embeddingRequested = "BAAI/bge-small-en-v1.5" })))
  H.eq("BAAI/bge-small-en-v1.5 (not loaded yet)", label({ embeddingModel = "BAAI/bge-small-en-v1.5" }))
end)

H.finish()
