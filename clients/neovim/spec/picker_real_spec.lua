-- :RagQuery with the REAL telescope.nvim (+ plenary.nvim) and snacks.nvim from ../shared/nvim-plugins (see its
-- README; $RAGLS_NVIM_PLUGINS overrides the folder), against the real server: the picker lists rag/query's
-- results, its preview lands on and highlights the cited (focus) lines, and <CR> opens them. Skipped, with the
-- reason, when the plugins are not there (a clone without the shared folder).
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

local repo = vim.fs.dirname(vim.fs.dirname(H.plugin_dir))
local plugins = os.getenv("RAGLS_NVIM_PLUGINS") or vim.fs.joinpath(vim.fs.dirname(repo), "shared", "nvim-plugins")
local function plugin(name)
  local dir = vim.fs.joinpath(plugins, name)
  return vim.fn.isdirectory(dir) == 1 and dir or nil
end

H.load_plugin_for_workspace()
local client = H.open_and_wait_indexed("README.md", 3)
local ui = require("ragls.ui")
local config = require("ragls.config")

local QUERY = "frobnicator timeout seconds"
local best = H.request_sync(client, "rag/query", { query = QUERY }).result.chunks[1]
local focus = best.source.focusRange or best.source.range
local best_file = vim.uv.fs_realpath(vim.fs.joinpath(H.workspace, best.source.path))

local function reset()
  vim.cmd("stopinsert")
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_is_valid(w) and vim.api.nvim_win_get_config(w).relative ~= "" then
      pcall(vim.api.nvim_win_close, w, true)
    end
  end
  vim.cmd.edit({ vim.fn.fnameescape(vim.fs.joinpath(H.workspace, "README.md")), bang = true })
end

--- The preview window `win` shows the best chunk's file with the cursor on its first focus line, those lines lit.
local function preview_at_focus(win)
  local buf = vim.api.nvim_win_get_buf(win)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if not vim.deep_equal(lines, vim.fn.readfile(best_file)) then
    return false
  end
  return vim.api.nvim_win_get_cursor(win)[1] == focus.start.line + 1
end

H.it("telescope.nvim (real): the preview's cursor is on the cited line, lit; <CR> opens it", function()
  local tele, plenary = plugin("telescope.nvim"), plugin("plenary.nvim")
  if not (tele and plenary) then
    H.out("# SKIP telescope.nvim / plenary.nvim not found in " .. plugins)
    return
  end
  vim.opt.runtimepath:prepend(plenary)
  vim.opt.runtimepath:prepend(tele)
  require("telescope").setup({})
  config.values.picker = "telescope"
  vim.o.columns, vim.o.lines = 160, 40 -- telescope shows its preview from 120 columns (preview_cutoff)
  reset()
  vim.cmd("RagQuery " .. QUERY)
  local picker
  H.wait_for(function()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.bo[b].filetype == "TelescopePrompt" then
        picker = require("telescope.actions.state").get_current_picker(b)
      end
    end
    return picker ~= nil and type(picker.manager) == "table" and picker.manager:num_results() > 0
  end, 30000, "the telescope picker with results")
  local win = picker.layout.preview.winid
  H.wait_for(function() return preview_at_focus(win) end, 20000, "the preview at the focus line")
  local buf = vim.api.nvim_win_get_buf(win)
  local marks = vim.api.nvim_buf_get_extmarks(buf, ui.highlight_ns, 0, -1, { details = true })
  H.eq(1, #marks, "the cited lines are highlighted")
  H.eq(focus.start.line, marks[1][2], "from the first focus line")
  H.screenshot("telescope-preview")
  require("telescope.actions").select_default(picker.prompt_bufnr)
  H.wait_for(function() return vim.uv.fs_realpath(vim.api.nvim_buf_get_name(0)) == best_file end, 10000, "opened")
  H.eq(focus.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "<CR> opens the file at the focus line")
  vim.cmd("stopinsert")
end)

H.it("snacks.nvim picker (real): the preview's cursor is on the cited line; confirm opens it", function()
  local snacks_dir = plugin("snacks.nvim")
  if not snacks_dir then
    H.out("# SKIP snacks.nvim not found in " .. plugins)
    return
  end
  package.loaded["telescope.pickers"] = nil
  vim.opt.runtimepath:prepend(snacks_dir)
  require("snacks").setup({ picker = { enabled = true } })
  config.values.picker = "snacks"
  reset()
  vim.cmd("RagQuery " .. QUERY)
  local picker
  H.wait_for(function()
    picker = Snacks.picker.get()[1]
    return picker ~= nil and #picker:items() > 0 and picker.preview and picker.preview.win
      and picker.preview.win.win and vim.api.nvim_win_is_valid(picker.preview.win.win)
  end, 30000, "the snacks picker with results and its preview")
  local win = picker.preview.win.win
  H.wait_for(function() return preview_at_focus(win) end, 20000, "the preview at the focus line")
  H.screenshot("snacks-preview")
  picker:action("confirm")
  H.wait_for(function() return vim.uv.fs_realpath(vim.api.nvim_buf_get_name(0)) == best_file end, 10000, "opened")
  H.eq(focus.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "confirm opens the file at the focus line")
  vim.cmd("stopinsert")
end)

H.finish()
