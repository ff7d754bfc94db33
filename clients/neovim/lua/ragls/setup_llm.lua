---@mod ragls.setup_llm Who writes the answers: |:RagSetup|.
---
--- Local LLMs in two steps: the server lists the runtimes answering on their default ports (Ollama, LM Studio,
--- llama.cpp, vLLM, Jan…; `rag/models`), you pick one (or type a base URL, whose `GET /models` is tried without a
--- key first: the connection test), then one of the models it serves. The choice is applied at once to the running
--- server (`workspace/didChangeConfiguration`) and shown as the `setup{}` snippet to keep in your config. A server
--- that needs a key is refused with the server's message (keys come from the environment, never from here).

local config = require("ragls.config")
local rpc = require("ragls.rpc")

local M = {}

--- The `settings.generation` for a choice: `external` for a server that needs no key, `ollama`, or `none`.
---@param server table|nil  a rag/models server ({ baseUrl, backend, models }); nil: no LLM
---@param model string|nil
---@return table generation settings (snake_case, as in ragls.toml)
function M.generation(server, model)
  if not server then
    return { backend = "none" }
  end
  if server.backend == "ollama" then
    return { backend = "ollama", model = model }
  end
  return { backend = server.backend == "openai" and "openai" or "external", base_url = server.baseUrl, model = model }
end

--- The lines to put in the user's config for `generation`.
---@param generation table
---@return string[]
function M.snippet(generation)
  local fields = {}
  for _, key in ipairs({ "backend", "base_url", "model" }) do
    if generation[key] then
      table.insert(fields, ("%s = %q"):format(key, generation[key]))
    end
  end
  return {
    "-- in your config (e.g. init.lua), to keep this choice:",
    "require(\"ragls\").setup({",
    "  settings = { generation = { " .. table.concat(fields, ", ") .. " } },",
    "})",
  }
end

--- Apply `generation` to this session: the stored settings and every running ragls client
--- (`workspace/didChangeConfiguration`, which the server applies without a restart).
---@param generation table
function M.apply(generation)
  local settings = vim.deepcopy(config.values.settings or {})
  settings.generation = vim.tbl_extend("force", settings.generation or {}, generation)
  if generation.backend ~= "openai" and generation.backend ~= "external" then
    settings.generation.base_url = nil
  end
  config.values.settings = settings
  for _, client in ipairs(vim.lsp.get_clients({ name = require("ragls.server").name })) do
    client.settings = { ragls = settings }
    local params = { settings = { ragls = settings } }
    if vim.fn.has("nvim-0.11") == 1 then
      client:notify("workspace/didChangeConfiguration", params)
    else
      client.notify("workspace/didChangeConfiguration", params)
    end
  end
end

--- Finish with `server` (nil: no LLM): pick its model, apply, show the snippet. `on_done(generation)` for tests.
---@param server table|nil
---@param on_done? fun(generation: table)
local function choose_model(server, on_done)
  local function finish(model)
    local generation = M.generation(server, model)
    M.apply(generation)
    local who = generation.backend == "none" and "quotes from your docs (no LLM)"
      or ("%s%s"):format(generation.base_url or generation.backend, model and (" · " .. model) or "")
    rpc.notify("ragls: answers now come from " .. who)
    require("ragls.ui").open_float(M.snippet(generation), { title = "ragls: keep this choice", filetype = "lua" })
    if on_done then
      on_done(generation)
    end
  end
  if not server or #(server.models or {}) == 0 then
    return finish(nil)
  end
  if #server.models == 1 then
    return finish(server.models[1])
  end
  vim.ui.select(server.models, { prompt = "Which model?" }, function(model)
    if model then
      finish(model)
    end
  end)
end

--- Test `base_url` (rag/models: `GET <base_url>/models`, no key first), then choose one of its models.
---@param base_url string
---@param on_done? fun(generation: table)
function M.try_url(base_url, on_done)
  rpc.request("rag/models", { baseUrl = base_url }, function(result)
    local server = result.servers and result.servers[1]
    if not server or server.error then
      rpc.notify(("ragls: the connection test failed: %s"):format(server and server.error or "no answer"),
        vim.log.levels.ERROR)
      return
    end
    choose_model(server, on_done)
  end)
end

--- |:RagSetup| [base_url]: with a URL, test it and choose a model; without, choose among the runtimes found running,
--- "another base URL…" or no LLM.
---@param base_url? string
---@param on_done? fun(generation: table)
function M.run(base_url, on_done)
  if base_url and vim.trim(base_url) ~= "" then
    return M.try_url(vim.trim(base_url), on_done)
  end
  -- the choice in use first (rag/status), so a change starts from what is there: "(now: openai · gpt-4o-mini)"
  rpc.request("rag/status", vim.empty_dict(), function(status)
    M.choose(require("ragls.status_view").answers_label(status), on_done)
  end, { on_error = function()
    M.choose(nil, on_done)
    return true -- (the choice goes on without it)
  end })
end

--- The choice of |M.run| without a URL; `now` is who writes the answers now (nil: not known).
---@param now? string
---@param on_done? fun(generation: table)
function M.choose(now, on_done)
  rpc.request("rag/models", vim.empty_dict(), function(result)
    local items = vim.list_extend({}, result.servers or {})
    table.insert(items, { other = true })
    table.insert(items, { none = true })
    vim.ui.select(items, {
      prompt = "Who should write ragls answers?" .. (now and (" (now: %s)"):format(now) or ""),
      format_item = function(item)
        if item.other then
          return "Another OpenAI-compatible server (base URL)…"
        elseif item.none then
          return "No LLM: answers quote your docs"
        end
        local models = #item.models > 0 and table.concat(vim.list_slice(item.models, 1, 4), ", ") or "no model listed"
        return ("%s at %s (%s)"):format(item.name, item.baseUrl, models)
      end,
    }, function(item)
      if not item then
        return
      elseif item.none then
        choose_model(nil, on_done)
      elseif item.other then
        vim.ui.input({ prompt = "Base URL: ", default = "http://localhost:1234/v1" }, function(url)
          if url and vim.trim(url) ~= "" then
            M.try_url(vim.trim(url), on_done)
          end
        end)
      else
        choose_model(item, on_done)
      end
    end)
  end)
end

return M
