---@mod ragls.jumpback `<C-o>` from a source back to its answer float.
---
--- Following a source from an answer float (|ragls-answer| `<CR>`) closes the float and jumps in the window the
--- question was asked from, with that place in the window's jumplist. When the jumplist brings that window back to
--- that place (`<C-o>`, `<C-i>`, `:ju`-style jumps; not a fresh jump or `:b#`, which leave the jumplist's position at
--- its end), the answer float opens again with the cursor on the source that was followed, as if it had never
--- closed. One answer at a time is remembered: following a source of another answer replaces it. |:RagLast| reopens
--- the last answer at any time.

local M = {}

local group = vim.api.nvim_create_augroup("ragls-jumpback", { clear = true })

---@class ragls.Jumpback
---@field win integer   the window the question was asked from (where the jump happened)
---@field buf integer   its buffer before the jump
---@field lnum integer  its cursor line before the jump
---@field question string
---@field result table  rag/ask result
---@field answer_lnum integer  the line of the answer float the source was followed from

---@type ragls.Jumpback|nil
M.pending = nil

--- Forget the remembered answer.
function M.disarm()
  M.pending = nil
  vim.api.nvim_clear_autocmds({ group = group })
end

--- Whether window `p.win` is back at the place of the jump by moving back through its jumplist: same buffer and
--- line, and the jumplist's current position is before its end (a new jump sets it to the end).
---@param p ragls.Jumpback
---@return boolean
local function back_at_origin(p)
  if not vim.api.nvim_win_is_valid(p.win) or vim.api.nvim_get_current_win() ~= p.win then
    return false
  end
  if vim.api.nvim_win_get_buf(p.win) ~= p.buf or vim.api.nvim_win_get_cursor(p.win)[1] ~= p.lnum then
    return false
  end
  local jumps = vim.fn.getjumplist(p.win)
  return jumps[2] < #jumps[1]
end

local function check()
  local p = M.pending
  if not p or not back_at_origin(p) then
    return
  end
  M.disarm()
  local view = require("ragls.answer_float").reopen_answer(p.question, p.result)
  if view and vim.api.nvim_win_is_valid(view.win) then
    local count = vim.api.nvim_buf_line_count(view.buf)
    pcall(vim.api.nvim_win_set_cursor, view.win, { math.min(p.answer_lnum, count), 0 })
  end
end

--- Remember the answer in `float_buf`'s state before following one of its sources from window `origin_win`.
--- Call `M.jumped()` once the jump succeeded (or `M.disarm()` when it did not).
---@param origin_win integer
---@param question string
---@param result table rag/ask result
---@param answer_lnum integer
function M.arm(origin_win, question, result, answer_lnum)
  M.disarm()
  if not (vim.api.nvim_win_is_valid(origin_win) and question and result) then
    return
  end
  M.pending = {
    win = origin_win,
    buf = vim.api.nvim_win_get_buf(origin_win),
    lnum = vim.api.nvim_win_get_cursor(origin_win)[1],
    question = question,
    result = result,
    answer_lnum = answer_lnum,
  }
end

--- The jump happened: from now on, coming back through the jumplist reopens the answer. BufEnter covers a jump
--- back into another buffer, CursorMoved one inside the same buffer; the check runs once the jump has finished
--- (scheduled), when the cursor is at its final place.
function M.jumped()
  if not M.pending then
    return
  end
  vim.api.nvim_create_autocmd({ "BufEnter", "CursorMoved" }, {
    group = group,
    callback = function()
      vim.schedule(check)
    end,
  })
  vim.api.nvim_create_autocmd("WinClosed", {
    group = group,
    pattern = tostring(M.pending.win),
    callback = function()
      M.disarm()
    end,
  })
end

return M
