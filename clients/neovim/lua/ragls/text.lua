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

--- `line` broken at its spaces into lines at most `width` display columns wide, each later one indented by `indent`
--- spaces (a hanging indent: a labelled value wraps under the value). Never breaks inside a word, where a window's
--- 'linebreak' breaks after any 'breakat' character ("all-MiniLM-" / "L6-v2", "src/**/*." / "py"; 'breakat' is a
--- global option, the user's); a word wider than the room left stays whole on a line of its own.
---@param line string
---@param width integer columns
---@param indent integer columns of the lines after the first
---@return string[]
function M.wrap(line, width, indent)
  if vim.fn.strdisplaywidth(line) <= width then
    return { line }
  end
  local pad = (" "):rep(indent)
  local out, cur = {}, line:match("^%s*")
  local bare = true -- `cur` holds no word yet
  for gap, word in line:sub(#cur + 1):gmatch("(%s*)(%S+)") do
    if bare or vim.fn.strdisplaywidth(cur .. gap .. word) <= width then
      cur, bare = cur .. (bare and "" or gap) .. word, false
    else
      table.insert(out, cur)
      cur = pad .. word
    end
  end
  table.insert(out, cur)
  return out
end

return M
