-- Named RAGs from Neovim: `rag=NAME` on :RagQuery with completion, and :RagUse (vim.ui.select) against the real
-- server. The RAG is declared in the workspace's ragls.toml over a notes folder outside the workspace.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local notes = vim.fn.tempname()
vim.fn.mkdir(notes, "p")
vim.fn.writefile({ "# Garden", "", "Tomatoes need six hours of sun every day." }, notes .. "/garden.md")
local toml = vim.fs.joinpath(H.workspace, "ragls.toml")
local lines = vim.fn.readfile(toml)
vim.list_extend(lines, { "", "[rags.notes]", ('sources = ["%s"]'):format(notes) })
vim.fn.writefile(lines, toml)
-- Sources outside the workspace need folder trust, which the edit above revoked: trust the new ragls.toml again
-- (`ragls trust`, as the user would), with the interpreter the test runs the server with.
H.trust_workspace()

H.load_plugin_for_workspace({})
local client = H.open_and_wait_indexed("README.md", 3)

H.it("rag= completes the server's knowledge bases", function()
  local items = vim.fn.getcompletion("RagQuery rag=", "cmdline")
  H.eq({ "rag=workspace", "rag=notes" }, items, "completion items")
  H.eq({ "rag=notes" }, vim.fn.getcompletion("RagAsk rag=n", "cmdline"), "filtered by the prefix")
end)

local function query_items(cmd, title)
  vim.fn.setqflist({}, "r")
  vim.cmd(cmd)
  return H.wait_for(function()
    local info = vim.fn.getqflist({ title = 1, items = 1 })
    return info.title == title and #info.items > 0 and info.items
  end, 60000, "quickfix items for " .. cmd)
end

H.it(":RagQuery rag=notes searches the named RAG", function()
  local items = query_items("RagQuery! rag=notes tomatoes sun hours", "RagQuery: tomatoes sun hours")
  H.eq(vim.fs.normalize(notes .. "/garden.md"), vim.fs.normalize(vim.api.nvim_buf_get_name(items[1].bufnr)),
    "the note is the best hit")
end)

H.it(":RagUse picks the knowledge base for later requests", function()
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(function(i)
      return opts.format_item(i)
    end, items)
    on_choice(items[2])
  end
  vim.cmd("RagUse")
  H.wait_for(function()
    return require("ragls.rags").selected
  end, 20000, "the choice")
  H.eq({ "notes" }, require("ragls.rags").selected, "selected")
  H.contains(offered[2], "notes  (1 file, 1 section)", "items show counts")
  local items = query_items("RagQuery! tomatoes sun hours", "RagQuery: tomatoes sun hours")
  H.eq(vim.fs.normalize(notes .. "/garden.md"), vim.fs.normalize(vim.api.nvim_buf_get_name(items[1].bufnr)),
    "a plain :RagQuery now goes to the chosen RAG")
  local direct = H.request_sync(client, "rag/query", { query = "tomatoes sun hours" })
  H.ok(direct.result.chunks[1].source.path ~= notes .. "/garden.md", "the server default is still the workspace")
end)

H.finish()
