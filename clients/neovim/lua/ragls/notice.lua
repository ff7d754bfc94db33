---@mod ragls.notice A notice wider than the command line, whole in a float.
---
--- Neovim's own |vim.notify| echoes a message on the command line; one wider than it (|v:echospace|), or of several
--- lines, stops on a hit-enter prompt ("Press ENTER or type command to continue") over whatever you were doing:
--- the "server stopped" notice at 60 columns, the server's untrusted-folder warning (3 rows at 100 columns) right
--- after vim.secure's question. |ragls.rpc| `notify` shows such a notice here instead, when no notification plugin
--- replaced vim.notify (a plugin shows it its own way): its line cut to the command line (|ragls.progress| `fit`;
--- |:messages| keeps the whole text: `M.echo_whole`), and the whole text wrapped in a small float at the bottom
--- right, above the statusline, that closes by itself (`M.show_ms`) or when the next notice replaces it.

local M = {}

--- Widest a notice float's text is (display columns), as a notification plugin's toast (nvim-notify: 50-80).
M.MAX_WIDTH = 72
--- How long (ms) a notice float stays: `MIN_MS`, plus `MS_PER_CHAR` for each character (reading at ~25 characters
--- a second), at most `MAX_MS`.
M.MIN_MS, M.MS_PER_CHAR, M.MAX_MS = 4000, 40, 15000

local open = nil -- { win = integer, timer = uv_timer_t } of the notice shown now

--- Whether `msg` shows on the command line without a hit-enter prompt: one line, at most |v:echospace| columns
--- (more rows with a taller 'cmdheight'; with 'cmdheight' 0 nothing fits).
---@param msg string
---@return boolean
function M.fits_cmdline(msg)
  if msg:find("\n", 1, true) or vim.o.cmdheight < 1 then
    return false
  end
  return vim.fn.strdisplaywidth(msg) <= vim.v.echospace + (vim.o.cmdheight - 1) * vim.o.columns
end

--- Close the notice float shown now, if any.
function M.close()
  if open then
    open.timer:stop()
    open.timer:close()
    if vim.api.nvim_win_is_valid(open.win) then
      vim.api.nvim_win_close(open.win, true)
    end
    open = nil
  end
end

--- How long (ms) the notice `msg` stays.
---@param msg string
---@return integer
function M.show_ms(msg)
  return math.min(M.MAX_MS, M.MIN_MS + M.MS_PER_CHAR * vim.fn.strchars(msg))
end

--- Milliseconds after the whole notice that its cut line is echoed and 'messagesopt' set back (`M.echo_whole`):
--- long enough for Neovim to have redrawn over the notice (its main loop, between two events), short to the eye.
M.RESTORE_MS = 150

--- Keep `msg` whole in |:messages| and leave `line` (its line cut to the command line) there, with no hit-enter
--- prompt. Neovim cannot add a message to the history without showing it, and one wider than the command line
--- asks for Enter: with 'messagesopt' (Neovim 0.11+) the notice is shown with "wait:0" in place of "hit-enter"
--- (Neovim redraws over it at once instead of asking), and `M.RESTORE_MS` later 'messagesopt' is set back and `line`
--- echoed, not kept a second time. (Set back sooner, in a |vim.schedule()| callback or at |SafeState|, or with
--- |:redraw| instead, Neovim still asked for Enter when the notice came from a callback: git's answer to
--- |:RagCommit|'s :w.) Neovim 0.10 has no 'messagesopt': only `line` is kept. :messages had only the cut line
--- ("ragls: git commit failed: Author identity unknown *** Please tell me who you are. Run git config …"), and the
--- float with the whole text closes by itself.
---@param msg string
---@param line string
---@param hl string|nil
function M.echo_whole(msg, line, hl)
  if vim.fn.exists("+messagesopt") == 0 then
    vim.api.nvim_echo({ { line, hl } }, true, {})
    return
  end
  local saved = vim.o.messagesopt
  local quick = saved:gsub("hit%-enter", "wait:0"):gsub("wait:%d+", "wait:0")
  vim.o.messagesopt = quick
  vim.api.nvim_echo({ { msg, hl } }, true, {})
  vim.defer_fn(function()
    if vim.o.messagesopt == quick then -- (unless something else set it meanwhile)
      vim.o.messagesopt = saved
    end
    vim.api.nvim_echo({ { line, hl } }, false, {})
  end, M.RESTORE_MS)
end

--- How many display columns one line of a notification plugin's toast shows, when the plugin cuts a longer line
--- instead of wrapping it; nil when nothing is cut (Neovim's own |vim.notify|, nvim-notify, mini.notify, noice) or
--- the plugin is not known. snacks.notifier (LazyVim's) draws its toasts with 'nowrap' at most `width.max` of the
--- editor wide (default 0.4: 48 of 120 columns), so a ragls notice lost its end, where it says what to do ("ragls:
--- the server stopped (exit 1); :RagAsk st…"), and the indexing progress its percentage. The room is snacks' own
--- sum (its `dim` of `width.max`, less its padding, a column each side, and the icon of its "minimal" style), read
--- from `Snacks.config.get("notifier")`; a 'wrap' the user set in `styles.notification` cuts nothing.
---@return integer|nil
function M.plugin_room()
  local info = debug.getinfo(vim.notify, "S")
  local snacks = rawget(_G, "Snacks")
  if not (info and (info.source or ""):find("snacks", 1, true) and type(snacks) == "table") then
    return nil
  end
  local ok, opts = pcall(snacks.config.get, "notifier", { width = { min = 40, max = 0.4 }, padding = true })
  local style_ok, style = pcall(function() return snacks.config.styles.notification end)
  if not ok or type(opts) ~= "table" or (style_ok and type(style) == "table" and style.wo and style.wo.wrap) then
    return nil
  end
  local max = type(opts.width) == "table" and tonumber(opts.width.max) or 0.4
  local width = math.floor(max < 1 and vim.o.columns * max or max)
  return math.max(20, width - (opts.padding == false and 0 or 2) - (opts.style == "minimal" and 2 or 0))
end

--- The lines of `msg` (split at "\n"), each wrapped at its spaces to at most `width` display columns, its later
--- lines indented by `indent` spaces (|ragls.text| `wrap`).
---@param msg string
---@param width integer columns
---@param indent? integer columns (default 0)
---@return string[]
function M.wrapped(msg, width, indent)
  local lines = {}
  for _, line in ipairs(vim.split(msg, "\n", { plain = true })) do
    vim.list_extend(lines, require("ragls.text").wrap(line, width, indent or 0))
  end
  return lines
end

--- `msg` with each of its lines wrapped at the room a notification plugin's toast shows (`M.plugin_room`) so that
--- none is cut, a wrapped line's rest indented by `indent` (a key list's descriptions under their column); as it is
--- when the plugin cuts nothing.
---@param msg string
---@param indent? integer columns (default 0)
---@return string
function M.for_plugin(msg, indent)
  local room = M.plugin_room()
  if not room then
    return msg
  end
  return table.concat(M.wrapped(msg, room, indent), "\n")
end

--- Show `msg` (a notice too wide for the command line) at `level` (|vim.log.levels|): its line cut to the command
--- line, the whole text in |:messages| (`M.echo_whole`) and in a float (replacing an earlier one). Returns the
--- float's window.
---@param msg string
---@param level integer
---@return integer|nil win nil when the editor is too small for a float
function M.show(msg, level)
  local hl = level >= vim.log.levels.ERROR and "ErrorMsg" or level >= vim.log.levels.WARN and "WarningMsg" or nil
  M.echo_whole(msg, require("ragls.progress").fit(msg), hl)
  M.close()
  local width = math.min(M.MAX_WIDTH, vim.o.columns - 4) -- the border's 2 columns and a margin of 1 each side
  local rows_free = vim.o.lines - vim.o.cmdheight - (vim.o.laststatus > 0 and 1 or 0) - 2 -- the border's 2 rows
  if width < 10 or rows_free < 1 then
    return nil
  end
  local lines = M.wrapped(msg, width)
  lines = vim.list_slice(lines, 1, rows_free)
  local text_width = 1
  for _, line in ipairs(lines) do
    text_width = math.max(text_width, vim.fn.strdisplaywidth(line))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local win = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    anchor = "SE",
    row = vim.o.lines - vim.o.cmdheight - (vim.o.laststatus > 0 and 1 or 0),
    col = vim.o.columns - 1,
    width = math.min(width, text_width),
    height = #lines,
    style = "minimal",
    border = require("ragls.config").values.float.border or "rounded",
    focusable = false,
    noautocmd = true,
    zindex = 200, -- over ragls' other floats (the answer)
  })
  vim.wo[win].winhighlight = "NormalFloat:Normal" .. (hl and (",FloatBorder:" .. hl) or "")
  local timer = assert(vim.uv.new_timer())
  open = { win = win, timer = timer }
  timer:start(M.show_ms(msg), 0, vim.schedule_wrap(function()
    if open and open.win == win then
      M.close()
    end
  end))
  return win
end

return M
