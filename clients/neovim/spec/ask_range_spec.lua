-- :RagAsk over a range (a visual selection, `5,8RagAsk`, `%RagAsk`) against the real ragls server with generation
-- backend `none`: the selected lines are sent as an ephemeral document (a temporary file, removed after), its source
-- jumps back to them (a named file or an unnamed buffer, labelled [selection]), and a generic question about them is
-- answered from the selection. The answer float itself: ask_spec.lua.
local H = dofile(vim.fs.joinpath(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")), "helpers.lua"))

H.load_plugin_for_workspace()
H.open_and_wait_indexed("README.md", 3)

--- Run :RagAsk (with an optional range prefix) and wait for the finished answer float.
local ask = H.ask_float
local shown, find_line = H.shown_source, H.find_line

H.it("a visual range is sent as an ephemeral document; its source jumps back to the selected lines", function()
  -- A file outside the index, so only the selection can answer.
  local notes = vim.fn.tempname() .. "-notes.md"
  vim.fn.writefile({ "# Pantry", "", "Unrelated line.", "", "## Rations", "",
    "The zorblax ration is 17 biscuits per day.", "Biscuits are stored in the blue tin." }, notes)
  vim.cmd.edit(vim.fn.fnameescape(notes))
  -- :'<,'>RagAsk without a question: the prompt names the lines it asks about, as the heading does (it said "Ask
  -- ragls: " as for any question; VS Code's input box names them too)
  local input, prompts = vim.ui.input, {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(prompts, opts.prompt)
    on_confirm(nil)
  end
  local ok, err = pcall(vim.cmd, "5,8RagAsk")
  vim.ui.input = input
  assert(ok, err)
  H.eq({ "Ask about " .. vim.fn.fnamemodify(notes, ":~:.") .. ":5-8: " }, prompts, "the prompt")
  local documents, sent_text
  local win, buf, result = H.with_request_spy("rag/ask", function(params)
    documents = vim.deepcopy(params.documents)
    sent_text = vim.fn.readfile(documents[1])
  end, ask, "5,8RagAsk How many biscuits is the zorblax ration?")
  H.eq(1, #documents, "one document")
  H.eq({ "## Rations", "", "The zorblax ration is 17 biscuits per day.", "Biscuits are stored in the blue tin." },
    sent_text, "the selected lines were sent")
  H.eq(nil, vim.uv.fs_stat(documents[1]), "the temporary selection file is removed")
  -- the float heads the question with the lines it is about (the float covers them; it had the question alone)
  H.eq("## How many biscuits is the zorblax ration? (" .. vim.fn.fnamemodify(notes, ":~:.") .. ":5-8)",
    vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1], "the heading names the selection")
  H.contains(result.answer, "17 biscuits", "answer comes from the selection")
  local source = H.last_source(result.sources, function(s) return s.uri == vim.uri_from_fname(notes) end)
  H.ok(source, "a source points at the selected buffer: " .. vim.inspect(result.sources))
  H.ok(source.range.start.line >= 4 and source.range["end"].line <= 8, "source range lies in the selection")
  vim.api.nvim_win_set_cursor(win, { find_line(buf, shown(source)), 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(vim.fs.normalize(notes), vim.fs.normalize(vim.api.nvim_buf_get_name(0)), "jumped to the selected buffer")
  H.eq(source.range.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "at the selected lines")
end)

H.it("a range of an unnamed buffer: its source is labelled [selection] and jumps back to that buffer", function()
  vim.cmd.enew()
  local scratch = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { "Unrelated line.", "", "Unrelated too.", "",
    "The quuxite allowance is 23 pebbles per week.", "Pebbles are kept in the green jar." })
  local win, buf, result = ask("%RagAsk How many pebbles is the quuxite allowance?")
  H.contains(result.answer, "23 pebbles", "answer comes from the selection")
  local source = H.last_source(result.sources, function(s) return s.bufnr == scratch end)
  H.ok(source, "a source points at the unnamed buffer: " .. vim.inspect(result.sources))
  H.eq("[selection]", source.path, "label")
  H.ok(source.range.start.line <= 4 and source.range["end"].line >= 4, "source range covers the answer line")
  local lnum = find_line(buf, shown(source))
  H.ok(lnum, "source line shown")
  H.contains(vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1], "[selection]:")
  vim.api.nvim_win_set_cursor(win, { lnum, 0 })
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.eq(false, vim.api.nvim_win_is_valid(win), "float closed")
  H.eq(scratch, vim.api.nvim_get_current_buf(), "jumped to the unnamed buffer")
  H.eq(source.range.start.line + 1, vim.api.nvim_win_get_cursor(0)[1], "at the source's first line")
end)

H.it("a generic question about a visual range, without an LLM, is answered from the selection", function()
  local notes = vim.fn.tempname() .. "-wombats.md"
  vim.fn.writefile({ "# Field notes", "", "The wombat migration starts at the first frost in the Pindari valley.",
    "Each herd follows the oldest wombat along the river.", "", "Unrelated closing line." }, notes)
  for _, w in ipairs(H.floats()) do
    vim.api.nvim_win_close(w, true)
  end
  vim.cmd.edit(vim.fn.fnameescape(notes))
  local question
  local _, buf, result = H.with_request_spy("rag/ask", function(params) question = params.question end, ask,
    "3,4RagAsk What does this mean?")
  H.contains(question, "What does this mean?\n\nSelected text (", "the question carries the selection")
  H.contains(question, "wombat migration starts at the first frost", "selected text in the question")
  H.eq("## What does this mean? (" .. vim.fn.fnamemodify(notes, ":~:.") .. ":3-4)", vim.api.nvim_buf_get_lines(buf, 0, 1,
    false)[1], "heading shows the short question and its place, not the selected text")
  H.contains(result.answer, "wombat", "the extractive answer quotes the selection")
  H.eq(vim.uri_from_fname(notes), result.sources[1].uri, "the best source is the selection")
  for _, s in ipairs(result.sources) do
    H.ok(s.path ~= "guide/frobnicator.md" and s.path ~= "faq.md",
      "no unrelated indexed document among the sources: " .. s.path)
  end
end)

H.finish()
