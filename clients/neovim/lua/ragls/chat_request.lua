---@mod ragls.chat_request The `rag/ask` request of one |:RagChat| turn, from sending it to its end: until the
--- first words the turn says what it waits for (|ragls.answer_float|'s pending line), then the streamed words land in
--- that turn alone (its own `partialResultToken`), and the turn ends "done", "cancelled" or "error" (a late result
--- after a stop does not overwrite it). |ragls.chat| owns the thread and draws it.

local config = require("ragls.config")
local rpc = require("ragls.rpc")

local M = {}

--- Send `turn.question` as `rag/ask` with the thread's `history` (docs/protocol.md), streaming the answer into
--- `turn.text`; sets `turn.cancel` while it streams, `turn.result` / `turn.error` and `turn.status` at its end.
---@param turn ragls.ChatTurn  a new turn with status "streaming"
---@param history table[]  { role, content } of the finished turns before it (|ragls.chat|.history)
---@param opts { documents?: string[], on_result?: fun(result: table), cleanup?: fun() }
---@param redraw fun()  called after every change of the turn the chat shows
function M.send(turn, history, opts, redraw)
  local question = turn.question
  local finished = false
  -- Until the first words, the turn says what it waits for, as the answer float does: the server starting, the index
  -- being built, or the seconds waited (a bare "…" for the 20 s of a first question while the server started).
  local answer_float = require("ragls.answer_float")
  local started, timer = vim.uv.now(), vim.uv.new_timer()
  local function stop_pending()
    if not timer:is_closing() then
      timer:stop()
      timer:close()
    end
  end
  timer:start(answer_float.PENDING_REFRESH_MS, answer_float.PENDING_REFRESH_MS, vim.schedule_wrap(function()
    if finished or turn.text ~= "" then
      return stop_pending()
    end
    local line = answer_float.pending_line(vim.uv.now() - started)
    if line ~= turn.pending then
      turn.pending = line
      redraw()
    end
  end))
  local token = rpc.open_stream(function(delta)
    if turn.status == "streaming" then
      turn.text = turn.text .. delta
      redraw()
    end
  end)
  local function done(status)
    if finished then
      return
    end
    finished = true
    stop_pending()
    rpc.close_stream(token)
    turn.cancel = nil
    turn.status = status
    if opts.cleanup then
      opts.cleanup()
    end
  end
  turn.cancel = function()
    done("cancelled")
    redraw()
  end
  rpc.request("rag/ask", {
    question = question,
    topK = config.values.top_k,
    documents = opts.documents,
    history = #history > 0 and history or nil,
    partialResultToken = token,
  }, function(result)
    if finished then
      return -- cancelled meanwhile: a late result does not overwrite the stopped turn
    end
    if opts.on_result then
      opts.on_result(result)
    end
    turn.result = result
    turn.text = result.answer or turn.text
    done("done")
    redraw()
  end, {
    on_error = function(err)
      if finished then
        return
      end
      turn.error = rpc.error_text("rag/ask", err)
      done(err.code == -32800 and "cancelled" or "error")
      redraw()
    end,
    on_fail = function(msg) -- no server answers it (none installed, none started): the turn says why, not "…"
      if finished then
        return false
      end
      turn.error = msg
      done("error")
      redraw()
      return true
    end,
    on_sent = function(client, request_id)
      if finished then -- stopped before the request went out
        rpc.cancel(client, request_id)
        return
      end
      turn.cancel = function()
        done("cancelled")
        rpc.cancel(client, request_id)
        redraw()
      end
    end,
  })
end

return M
