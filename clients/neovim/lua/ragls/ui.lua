---@mod ragls.ui Floats: a scratch float, prose wrapping, hidden code fences, fitting a float to its text.
--- (Source jumps live in `ragls.jump`, the answer float in `ragls.answer_float`, quickfix lists in `ragls.quickfix`.)
--- (The text of an answer and its source labels lives in `ragls.answer_text`, re-exported here.)
---
--- Pure rendering: this module never talks to the server.

local config = require("ragls.config")

local M = {}

--- Make `names` of the module `mod` (a table) ragls.ui's own: the jobs that moved out of ragls.ui keep these names
--- for its callers.
---@param mod table
---@param names string[]
local function reexport(mod, names)
  for _, name in ipairs(names) do
    M[name] = mod[name]
  end
end

-- The text of answers and their source labels lives in ragls.answer_text.
reexport(require("ragls.answer_text"), { "source_location", "source_entries", "source_line", "sources_heading",
  "answer_lines", "error_lines", "footer", "answer_keys", "ANSWER_KEYS", "body_lines", "source_fname" })
-- What a [n] cites lives in ragls.citation.
reexport(require("ragls.citation"), { "citation_at", "cited_source" })

--- Float size from the `float.width`/`float.height` option: a fraction (<= 1) of `total`, at least `min`; a
--- larger number is a count of columns/lines. The caller clamps it to the editor.
---@param value number
---@param total integer editor columns or lines
---@param min integer
---@return integer
local function size(value, total, min)
  if value <= 1 then
    return math.max(min, math.floor(total * value))
  end
  return value
end
M.size = size

--- The 'breakat' characters that can stand inside a number ("0.07", "1,000", "12:30", "3/4", "2026-12-07", "1e+5"):
--- with 'linebreak' a window wraps after any of them, so "0." / "07" read as two numbers.
M.NUMBER_BREAKS = ".,:/-+"

-- While a prose window is shown (|M.prose_window|): the user's 'breakat', and the value set in its place.
local users_breakat, narrowed = nil, nil

--- Keep numbers whole in the prose windows (`whole` true: one is shown) or give the user's 'breakat' back (false).
--- 'breakat' is a global option (no window has its own), so it goes without `NUMBER_BREAKS` only while a prose window
--- is shown, and the value the user had comes back when the last one closes (unless the user set another meanwhile:
--- that one stays).
---@param whole boolean
local function keep_numbers_whole(whole)
  if whole and users_breakat == nil then
    users_breakat = vim.o.breakat
    narrowed = users_breakat:gsub("[" .. vim.pesc(M.NUMBER_BREAKS) .. "]", "")
    vim.o.breakat = narrowed
  elseif not whole and users_breakat ~= nil then
    if vim.o.breakat == narrowed then
      vim.o.breakat = users_breakat
    end
    users_breakat, narrowed = nil, nil
  end
end

--- Whether a window of the current tab page shows a prose buffer (|M.prose_window|), other than `closing`.
---@param closing? integer a window being closed
---@return boolean
local function prose_shown(closing)
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if w ~= closing and vim.api.nvim_win_is_valid(w) and vim.b[vim.api.nvim_win_get_buf(w)].ragls_prose then
      return true
    end
  end
  return false
end

--- 'breakat' follows the prose windows shown in the current tab page (`keep_numbers_whole`): set once when the first
--- opens, given back when the last closes or another tab page shows none. It changed on each move between a prose
--- window and another, which rewrapped the user's own 'linebreak' windows beside it (:RagChat's split) at every move.
local function follow_prose_windows()
  local group = vim.api.nvim_create_augroup("ragls_prose_breakat", { clear = true })
  vim.api.nvim_create_autocmd({ "WinEnter", "TabEnter", "BufWinEnter" }, { group = group,
    callback = function() keep_numbers_whole(prose_shown()) end })
  -- (a window being closed, or a buffer leaving its window, is still listed in the tab page)
  vim.api.nvim_create_autocmd("WinClosed", { group = group,
    callback = function(args) keep_numbers_whole(prose_shown(tonumber(args.match))) end })
  vim.api.nvim_create_autocmd("BufWinLeave", { group = group,
    callback = function() vim.schedule(function() keep_numbers_whole(prose_shown()) end) end })
end

--- Wrap an answer's markdown in `win` for reading: at word boundaries, a list item's wrapped lines hanging under
--- its text (not at column 0), a quote's (an LLM error) under its "> ", a source's under its "[n] ", concealed
--- markup hidden, a number never split ("0." / "07": while `buf` is shown in the current tab page, 'breakat' goes
--- without `NUMBER_BREAKS`, the user's value back when no prose window is). `buf`'s 'formatlistpat' is set to
--- markdown's list items and quotes and the sources' numbers ("- ", "* ", "1. ", "> ", "[1] "), so this holds
--- without the markdown ftplugin too.
---@param win integer
---@param buf integer
function M.prose_window(win, buf)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true
  vim.wo[win].breakindentopt = "list:-1"
  vim.wo[win].list = false -- (a user's 'listchars' nbsp would show in a citation's space: ragls.code_wrap)
  vim.wo[win].conceallevel = 2
  vim.wo[win].concealcursor = "n"
  vim.bo[buf].formatlistpat = [[^\s*\d\+[.)]\s\+\|^\s*[-*+]\s\+\|^\s*>\s*\|^\[\d\+\]\s\+]]
  vim.b[buf].ragls_prose = true
  if vim.fn.exists("#ragls_prose_breakat") == 0 then
    follow_prose_windows()
  end
  keep_numbers_whole(prose_shown())
end

M.fence_ns = vim.api.nvim_create_namespace("ragls_fences")

--- Hide the ``` / ~~~ fence lines of the code blocks in an answer buffer (|conceal_lines| from Neovim 0.11; before,
--- their text is concealed and the line stays blank), so code reads as code without a markdown treesitter set-up:
--- Vim's markdown syntax (a `--clean` Neovim) showed the fences and the info string ("```python") raw. The code
--- between them keeps the syntax' highlight, the buffer's text is unchanged (|Y| yanks the fences), and a window
--- with 'conceallevel' 0 shows them. And keep every `[n]` whole: with a user's treesitter for markdown, the
--- markdown_inline queries read "[1]" as a shortcut link and conceal its brackets, so citations and source lines
--- read "1" (each bracket gets a conceal mark of higher priority replacing it by itself: a no-op without one).
--- Without such a treesitter the "## " of the question and of "### Sources" is hidden too (the heading keeps its
--- colour), also on the cursor's line ('concealcursor' n in the float: it is for reading).
--- Call it after each change of the buffer's lines.
---@param buf integer
function M.conceal_fences(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, M.fence_ns, 0, -1)
  -- (a user's treesitter for markdown, and the plugins that draw on it, show headings their own way)
  local highlighted = vim.treesitter.highlighter.active[buf] ~= nil
  local fence = nil -- the open block's fence ("```", "~~~~", ...): only the same or a longer one closes it
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local marks = line:match("^%s*(```+)") or line:match("^%s*(~~~+)")
    local closes = fence and marks and marks:sub(1, 1) == fence:sub(1, 1) and #marks >= #fence
      and vim.trim(line) == marks
    if closes or (not fence and marks) then
      fence = not closes and marks or nil
      if not pcall(vim.api.nvim_buf_set_extmark, buf, M.fence_ns, i - 1, 0, { conceal_lines = "" }) then
        vim.api.nvim_buf_set_extmark(buf, M.fence_ns, i - 1, 0, { end_col = #line, conceal = "" })
      end
    elseif not fence then
      local marker = not highlighted and line:match("^#+ ")
      if marker then -- "## How do I …?", "### Sources": the heading's colour says it is one
        vim.api.nvim_buf_set_extmark(buf, M.fence_ns, i - 1, 0, { end_col = #marker, conceal = "" })
      end
      for first, after in line:gmatch("()%[%d+%]()") do
        for _, col in ipairs({ first - 1, after - 2 }) do
          vim.api.nvim_buf_set_extmark(buf, M.fence_ns, i - 1, col,
            { end_col = col + 1, conceal = line:sub(col + 1, col + 1), priority = 300 })
        end
      end
    end
  end
end

--- Shrink the float `win` to its text (wrapped lines counted) when that is shorter, kept centred: a short status or
--- answer left most of a 70%-high float empty. Never grows it; at least `min` rows (default 1).
---@param win integer
---@param min? integer
function M.fit_float_height(win, min)
  if not (vim.api.nvim_win_text_height and vim.api.nvim_win_is_valid(win)) then
    return
  end
  local rows = math.max(vim.api.nvim_win_text_height(win, {}).all, min or 1)
  if rows < vim.api.nvim_win_get_height(win) then
    local cfg = vim.api.nvim_win_get_config(win)
    cfg.height = rows
    cfg.row = math.floor((vim.o.lines - rows) / 2) - 1
    vim.api.nvim_win_set_config(win, cfg)
  end
end

--- The float `win` (|M.open_float|) as tall as its text (wrapped lines counted), at least `min` rows (default 1) and
--- at most the height it opened with, its top row kept where it opened: an answer float grows from its question and
--- "…" (it stood 70 % tall around two lines while it waited) as the answer streams in, down, never jumping up.
---@param win integer
---@param min? integer
function M.follow_text_height(win, min)
  local opened = vim.api.nvim_win_is_valid(win) and vim.w[win].ragls_opened
  if not (vim.api.nvim_win_text_height and opened) then
    return
  end
  local rows = math.min(math.max(vim.api.nvim_win_text_height(win, {}).all, min or 1), opened.height)
  local cfg = vim.api.nvim_win_get_config(win)
  if rows ~= cfg.height then
    cfg.height, cfg.row = rows, opened.row
    vim.api.nvim_win_set_config(win, cfg)
  end
end

--- Screen rows of `win`'s text below its last fully shown line (wrapped lines counted): 0 when the text ends in view.
--- What a float says it hides ("↓ 12": a long answer's sources under the fold; VS Code's view has a scroll bar).
---@param win integer
---@return integer rows
function M.rows_below(win)
  if not (vim.api.nvim_win_text_height and vim.api.nvim_win_is_valid(win)) then
    return 0
  end
  local last = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
  local bottom = vim.fn.line("w$", win) -- the last line shown whole
  if bottom >= last then
    return 0
  end
  return vim.api.nvim_win_text_height(win, { start_row = bottom }).all -- (0-based: the line after `bottom`)
end

--- Set the bottom border of the float `win`: `hint(width)` (a key hint that fits `width` columns, or nil) at its
--- right, and with `more` true and text below the fold (|M.rows_below|) "↓ N" (its rows) at its left, the border's
--- own line between them. Nothing for a float without a border.
---@param win integer
---@param hint fun(width: integer): string|nil
---@param more boolean
function M.float_footer(win, hint, more)
  local border = config.values.float and config.values.float.border
  if border == "none" or border == "" or not vim.api.nvim_win_is_valid(win) then
    return
  end
  local width = vim.api.nvim_win_get_width(win)
  local below = more and M.rows_below(win) or 0
  if below == 0 then
    local keys = hint(width)
    if keys then
      pcall(vim.api.nvim_win_set_config, win, { footer = keys, footer_pos = "right" })
    end
    return
  end
  -- short, so the keys keep their room: in an 80-column editor " ↓ 7 more " left no room for "<C-q> qf"
  local said = (" ↓ %d "):format(below)
  local keys = hint(width - vim.fn.strdisplaywidth(said) + 2) or "" -- (at least 2 columns of line between them)
  local edge = vim.api.nvim_win_get_config(win).border
  local line = type(edge) == "table" and edge[6] or "─"
  line = type(line) == "table" and line[1] or line
  local gap = math.max(0, width - vim.fn.strdisplaywidth(said) - vim.fn.strdisplaywidth(keys))
  pcall(vim.api.nvim_win_set_config, win, { footer_pos = "left", footer = {
    { said, "FloatFooter" }, { (line ~= "" and line or " "):rep(gap), "FloatBorder" }, { keys, "FloatFooter" } } })
end

--- Call `fn` each time the window `win` scrolls (WinScrolled), until it closes.
---@param win integer
---@param fn fun()
function M.on_scroll(win, fn)
  vim.api.nvim_create_autocmd("WinScrolled", { pattern = tostring(win), callback = function()
    if not vim.api.nvim_win_is_valid(win) then
      return true -- (the window is gone: this autocmd too)
    end
    fn()
  end })
end

--- The place of a float in the editor as it is now: the `float` option's width and height (fractions of 'columns' and
--- 'lines', or counts), at most the editor's size less the command line and border, centred.
---@return { width: integer, height: integer, row: integer, col: integer }
function M.float_geometry()
  local fcfg = config.values.float
  local width = math.min(size(fcfg.width or 0.8, vim.o.columns, 40), vim.o.columns)
  local height = math.min(size(fcfg.height or 0.7, vim.o.lines, 5), vim.o.lines - 2)
  return { width = width, height = height, row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2) }
end

-- Float window -> the functions to call after it was fitted to a resized editor (|M.on_resize|).
local resize_callbacks = {}

--- Fit the float `win` (|M.open_float|) to the editor's size now, as if it opened now: the size and place
--- |M.float_geometry| gives (its text's height followed again by the callbacks), then `resize_callbacks[win]`. After
--- the editor grew or shrank (VimResized) a float kept the size and top row it opened with: cut at the bottom, its
--- border and "↓ N" below the screen, in a smaller editor; a quarter of a larger one.
---@param win integer
local function refit(win)
  local at = M.float_geometry()
  local cfg = vim.api.nvim_win_get_config(win)
  cfg.width, cfg.height, cfg.row, cfg.col = at.width, at.height, at.row, at.col
  vim.api.nvim_win_set_config(win, cfg)
  vim.w[win].ragls_opened = { height = at.height, row = at.row } -- (|M.follow_text_height|)
  for _, fn in ipairs(resize_callbacks[win] or {}) do
    fn()
  end
end

--- Call `fn` each time the float `win` (|M.open_float|) was fitted to the resized editor: its width and top row are
--- the new ones and its height the largest it may take (|M.follow_text_height| / |M.fit_float_height| shrink it to
--- its text again), until it closes. For what depends on the width: wrapped source lines, the footer's keys.
---@param win integer
---@param fn fun()
function M.on_resize(win, fn)
  resize_callbacks[win] = resize_callbacks[win] or {}
  table.insert(resize_callbacks[win], fn)
end

--- Keep the float `win` (opened at |M.float_geometry|) fitted to the editor: on each VimResized it takes the size and
--- place the `float` option gives the new editor (|refit|), then the |M.on_resize| callbacks run; until it closes.
---@param win integer
function M.follow_editor_size(win)
  local at = M.float_geometry()
  vim.w[win].ragls_opened = { height = at.height, row = at.row } -- (|M.follow_text_height|)
  local resized = vim.api.nvim_create_autocmd("VimResized", { desc = "ragls: fit the float to the editor's new size",
    callback = function()
      if vim.api.nvim_win_is_valid(win) then
        refit(win)
      end
    end })
  vim.api.nvim_create_autocmd("WinClosed", { pattern = tostring(win), once = true, callback = function()
    resize_callbacks[win] = nil
    pcall(vim.api.nvim_del_autocmd, resized)
  end })
end

--- Open a scratch float; returns bufnr, winid. `q` closes it. It follows the editor's size (|refit|).
---@param lines string[]
---@param opts { title?: string, filetype?: string, enter?: boolean }
---@return integer bufnr
---@return integer winid
function M.open_float(lines, opts)
  local fcfg = config.values.float
  local origin = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = opts.filetype or "markdown"
  local at = M.float_geometry()
  local win = vim.api.nvim_open_win(buf, opts.enter ~= false, {
    relative = "editor",
    width = at.width,
    height = at.height,
    row = at.row,
    col = at.col,
    style = "minimal",
    border = fcfg.border or "rounded",
    title = opts.title and (" " .. opts.title .. " ") or nil,
    title_pos = opts.title and "center" or nil,
  })
  vim.w[win].ragls_float_origin = origin -- (|M.leave_float|)
  M.follow_editor_size(win)
  M.prose_window(win, buf)
  vim.keymap.set("n", "q", function()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end, { buffer = buf, nowait = true, desc = "ragls: close" })
  return buf, win
end

--- Leave a floating current window for a window of the layout, before a list or a file opens there: one of ragls'
--- floats (|M.open_float|: the answer, the status) is closed and the window it was opened from made current; any
--- other float is left open and the previous window (else the tab page's first) made current. Opened from an answer
--- float, `:RagQuery!`'s quickfix list opened under the float and its entries in it, and a picker's result replaced
--- the answer in the float. Nothing happens in a window that is not a float. Returns the window made current.
---@return integer win
function M.leave_float()
  local function floating(w)
    return vim.api.nvim_win_get_config(w).relative ~= ""
  end
  local win = vim.api.nvim_get_current_win()
  if not floating(win) then
    return win
  end
  local origin = vim.w[win].ragls_float_origin
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if origin then
    pcall(vim.api.nvim_win_close, win, true)
  end
  for _, w in ipairs({ origin or -1, prev }) do
    if w > 0 and vim.api.nvim_win_is_valid(w) and not floating(w) then
      vim.api.nvim_set_current_win(w)
      return w
    end
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if not floating(w) then
      vim.api.nvim_set_current_win(w)
      return w
    end
  end
  return vim.api.nvim_get_current_win()
end

--- |vim.ui.input| that clears the command line once answered: Neovim's own (|input()|) left "Ask ragls: <question>"
--- there while the answer streamed into its float, until something else was echoed. (A plugin's input, a float:
--- snacks, dressing, leaves nothing there; the clearing echoes nothing then either.) `on_text(text)` gets the
--- answer without its surrounding spaces, and is not called when it is cancelled or blank (what every prompt of the
--- plugin asks for: a question or a query).
---@param opts table vim.ui.input's
---@param on_text fun(text: string)
function M.input(opts, on_text)
  vim.ui.input(opts, function(input)
    -- (an :echo right after input() leaves its text: the screen still owes input()'s own redraw)
    vim.cmd("redraw")
    vim.cmd.echo('""')
    if input and vim.trim(input) ~= "" then
      on_text(vim.trim(input))
    end
  end)
end

-- The quickfix lists (an answer's sources, rag/query results) live in ragls.quickfix; these names stay for callers of
-- ragls.ui (required on first use: ragls.quickfix itself uses ragls.ui's source labels).
for _, name in ipairs({ "quickfix_sources", "focus_text", "quickfix_items", "show_query" }) do
  M[name] = function(...)
    return require("ragls.quickfix")[name](...)
  end
end

-- :RagStatus's layout lives in ragls.status_view, the commit message's views in ragls.commit_ui.
reexport(require("ragls.status_view"), { "parse_iso", "human_time", "status_lines", "show_status" })
reexport(require("ragls.commit_ui"), { "insert_commit_message", "show_commit_scratch" })

return M
