---@mod ragls.commit_ui Where a generated commit message goes (|:RagCommit|): into the `gitcommit` buffer above
--- its comment lines, or a scratch `gitcommit` buffer. Re-exported by |ragls.ui|.

local M = {}

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

--- Show a commit message in a scratch `gitcommit` buffer (split below).
---@param message string
---@return integer bufnr
function M.show_commit_scratch(message)
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, split_lines(vim.trim(message)))
  vim.bo[buf].filetype = "gitcommit"
  pcall(vim.api.nvim_buf_set_name, buf, "ragls://commit-message")
  return buf
end

return M
