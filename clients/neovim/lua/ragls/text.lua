-- Text made into buffer lines. Text from the server shown on one buffer line: a file name or a reason may hold a
-- newline or another control character (a file really named "we\nird.md", a loader's multi-line error), which
-- nvim_buf_set_lines refuses and a terminal would act on.
local M = {}

local ESCAPES = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

--- `s` with its control characters written as escapes ("\n" -> `\n`, ESC -> `\x1b`), as `git` quotes such a path.
---@param s any (tostring'd)
---@return string
function M.one_line(s)
  return (tostring(s):gsub("%c", function(c)
    return ESCAPES[c] or ("\\x%02x"):format(c:byte())
  end))
end

--- `n` and the noun, singular for exactly 1, else `plural` (default: the noun + "s"): "1 file", "6 sections",
--- never "1 files" (as VS Code's `counted`).
---@param n integer
---@param noun string
---@param plural? string
---@return string
function M.counted(n, noun, plural)
  return ("%d %s"):format(n, n == 1 and noun or (plural or noun .. "s"))
end

--- The lines of `text` (split at "\n" and "\r\n"), for nvim_buf_set_lines.
---@param text string
---@return string[]
function M.split_lines(text)
  return vim.split(text, "\r?\n")
end

--- The first of `hints` (longest first) whose display width fits a window `width` columns wide, its border's two
--- corners and a margin left (`width - 4`), else nil: the key hint of a float's bottom border or a winbar.
---@param hints string[]  longest first
---@param width integer the window's width in columns
---@return string|nil
function M.longest_fitting(hints, width)
  for _, hint in ipairs(hints) do
    if vim.fn.strdisplaywidth(hint) <= width - 4 then
      return hint
    end
  end
  return nil
end

--- The longest start of `text` at most `room` display columns wide (wide characters, CJK, take two; "" when
--- `room` < 1).
---@param text string
---@param room integer columns
---@return string
function M.display_prefix(text, room)
  local cut = vim.fn.strcharpart(text, 0, math.max(room, 0))
  while cut ~= "" and vim.fn.strdisplaywidth(cut) > room do
    cut = vim.fn.strcharpart(cut, 0, vim.fn.strchars(cut) - 1)
  end
  return cut
end

--- `text` cut with "…" to at most `room` display columns (wide characters take two); whole when it fits.
---@param text string
---@param room integer columns
---@return string
function M.cut_to(text, room)
  if vim.fn.strdisplaywidth(text) <= room then
    return text
  end
  return M.display_prefix(text, room - 1) .. "…"
end

--- `word` cut into parts that each fit `room` display columns: after its "/" (a path's folders: "~/.cache/ragls/"
--- above "indexes/x-1f2e"), a part still wider cut at `room` columns. Returns { word } when it fits.
---@param word string
---@param room integer columns (at least 1)
---@return string[]
local function cut_word(word, room)
  local parts = {}
  for part in word:gmatch("[^/]*/?") do
    if part ~= "" then
      while vim.fn.strdisplaywidth(part) > room do
        local n = 1 -- the most characters that fit (at least one)
        while n < vim.fn.strchars(part) and vim.fn.strdisplaywidth(vim.fn.strcharpart(part, 0, n + 1)) <= room do
          n = n + 1
        end
        table.insert(parts, vim.fn.strcharpart(part, 0, n))
        part = vim.fn.strcharpart(part, n)
      end
      table.insert(parts, part)
    end
  end
  return parts
end

--- `line` broken at its spaces into lines at most `width` display columns wide, each later one indented by `indent`
--- spaces (a hanging indent: a labelled value wraps under the value). Never breaks inside a word, where a window's
--- 'linebreak' breaks after any 'breakat' character ("all-MiniLM-" / "L6-v2", "src/**/*." / "py"; 'breakat' is a
--- global option, the user's), except a word wider than a line's room (`width - indent`): that one (an index path)
--- breaks after a "/" of it, its parts packed onto the lines from where it starts, and a part wider still at the
--- room's edge (a window wrapping it broke "…/workspace-a6fb07a343" / "f5" under a deeper indent).
---@param line string
---@param width integer columns
---@param indent integer columns of the lines after the first
---@return string[]
function M.wrap(line, width, indent)
  if vim.fn.strdisplaywidth(line) <= width then
    return { line }
  end
  local pad = (" "):rep(indent)
  local room = math.max(1, width - indent)
  local out, cur = {}, line:match("^%s*")
  local bare = true -- `cur` holds no word yet
  for gap, word in line:sub(#cur + 1):gmatch("(%s*)(%S+)") do
    local parts = vim.fn.strdisplaywidth(word) > room and cut_word(word, room) or { word }
    for i, part in ipairs(parts) do
      local sep = (bare or i > 1) and "" or gap
      if bare or vim.fn.strdisplaywidth(cur .. sep .. part) <= width then
        cur, bare = cur .. sep .. part, false
      else
        table.insert(out, cur)
        cur = pad .. part
      end
    end
  end
  table.insert(out, cur)
  return out
end

return M
