---@mod ragls.commit_ui Where a generated commit message goes (|:RagCommit|): into the `gitcommit` buffer above
--- its comment lines, or a scratch `gitcommit` buffer. Re-exported by |ragls.ui|.

local M = {}

--- A notice through |ragls.rpc| (one wider than the command line in a float, |ragls.notice|).
local function notify(msg, level)
  require("ragls.rpc").notify(msg, level)
end

local function split_lines(text)
  return vim.split(text, "\r?\n")
end

--- Put a commit message into a `gitcommit` buffer, above its comment lines (`#…`). Blank lines already above
--- the comments are replaced; text the user already typed is kept above the message.
---@param bufnr integer
---@param message string
function M.insert_commit_message(bufnr, message)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local first_comment = #lines + 1
  for i, l in ipairs(lines) do
    if l:sub(1, 1) == "#" then
      first_comment = i
      break
    end
  end
  local msg_lines = split_lines(vim.trim(message))
  local all_blank = true
  for i = 1, first_comment - 1 do
    if vim.trim(lines[i]) ~= "" then
      all_blank = false
    end
  end
  local new = vim.list_extend({}, msg_lines)
  if first_comment <= #lines then
    table.insert(new, "")
  end
  if all_blank then
    vim.api.nvim_buf_set_lines(bufnr, 0, first_comment - 1, false, new)
  else
    -- Keep what is there, separated by a blank line.
    local at = first_comment - 1
    while at > 0 and vim.trim(lines[at]) == "" do
      at = at - 1
    end
    table.insert(new, 1, "")
    vim.api.nvim_buf_set_lines(bufnr, at, first_comment - 1, false, new)
  end
end

--- Show a commit message in a scratch `gitcommit` buffer (split below). With `opts.root` (the repository) the
--- buffer commits as git's own message buffer does: `:w` runs `git commit --cleanup=strip -F <buffer>` there
--- (`-a` too with `opts.all`, the message of |:RagCommit!|), reports git's summary line and closes the buffer;
--- `#` lines (the hint at the end) are left out of the commit. Without it the buffer is only text to copy.
---@param message string
---@param opts? { root?: string, all?: boolean }
---@return integer bufnr
function M.show_commit_scratch(message, opts)
  opts = opts or {}
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = opts.root and "acwrite" or "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  local lines = split_lines(vim.trim(message))
  if opts.root then
    -- short lines, as git's own template: one of 84 columns wrapped in an 80-column window ("are l" / "eft out")
    vim.list_extend(lines, { "",
      "# :w commits the " .. (opts.all and "changes to tracked files (git commit -a)" or "staged changes"),
      "# with this message; lines starting with '#' are left out.", "# :q! drops it." })
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = "gitcommit"
  pcall(vim.api.nvim_buf_set_name, buf, "ragls://commit-message")
  if opts.root then
    vim.api.nvim_create_autocmd("BufWriteCmd", {
      buffer = buf,
      callback = function()
        M.commit_buffer(buf, opts.root, opts.all)
      end,
    })
  end
  return buf
end

--- `:w` in the scratch commit buffer: `git commit` with its text (see `show_commit_scratch`),
--- asynchronously; on success the buffer is closed and git's summary line notified, else git's error.
---@param buf integer
---@param root string the repository
---@param all? boolean commit every change to tracked files (`-a`)
function M.commit_buffer(buf, root, all)
  local file = vim.fn.tempname()
  vim.fn.writefile(vim.api.nvim_buf_get_lines(buf, 0, -1, false), file)
  local cmd = { "git", "-C", root, "commit", "--cleanup=strip", "-F", file }
  if all then
    table.insert(cmd, 5, "-a") -- git -C root commit -a ...
  end
  vim.system(cmd, { text = true }, vim.schedule_wrap(function(res)
    os.remove(file)
    if res.code ~= 0 then
      local why = vim.trim((res.stderr or "") ~= "" and res.stderr or (res.stdout or ""))
      notify("ragls: git commit failed: " .. why, vim.log.levels.ERROR)
      return
    end
    notify("ragls: " .. (vim.split(vim.trim(res.stdout or ""), "\n")[1] or "committed"), vim.log.levels.INFO)
    if vim.api.nvim_buf_is_valid(buf) then
      vim.bo[buf].modified = false
      vim.api.nvim_buf_delete(buf, { force = true })
    end
  end))
end

return M
