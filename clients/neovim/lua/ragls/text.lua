-- Text from the server shown on one buffer line: a file name or a reason may hold a newline or another control
-- character (a file really named "we\nird.md", a loader's multi-line error), which nvim_buf_set_lines refuses and a
-- terminal would act on.
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

return M
