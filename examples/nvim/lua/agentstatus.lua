-- agentstatus.lua: the agents' summary in Neovim's statusline, e.g.
-- "2 blocked (Bash, question) · 2 working · 3 idle", kept up to date by
-- `statusls watch --json` (no polling: statusls pushes one JSON line per
-- change). In parentheses, what the blocked sessions wait for: the tool of a
-- permission prompt, else the kind of wait (question, auth).
--
-- Why each session is in its state, in the words of statusls's WHY column
-- ("Bash: rm -rf build", "question: Which database?", "cancelled", "rate
-- limited"), is in require('agentstatus').reasons(), and :AgentStatus lists
-- the sessions with it.
--
-- Install: put examples/nvim on 'runtimepath', or copy lua/agentstatus.lua to
-- ~/.config/nvim/lua/. Then, in init.lua:
--
--   require('agentstatus').setup()
--   vim.o.statusline = "%f %m%=%{v:lua.require'agentstatus'.statusline()} "
--
-- Options of setup (all optional):
--   cmd     the watcher command (default { "statusls", "watch", "--json" })
--   restart seconds before restarting the watcher when it exits (default 5;
--           0 does not restart)
--
-- Several machines: watch them through ssh with statusls's --host flags,
--
--   require('agentstatus').setup({
--     cmd = { "statusls", "watch", "--json", "--local", "--host", "devbox,gpu" },
--   })
--
-- (or "--all-hosts" for those of $STATUSLS_HOSTS or ~/.config/agentstatus/hosts).
-- Sessions are then counted per host, and a host that cannot be reached adds
-- "· 1 host offline" until it is back.
--
-- Needs Neovim 0.7 or later (vim.json, jobstart).

local M = {}

local sessions = {} -- session id (host:id for other machines) -> state, fresh sessions only
local reasons = {} -- session id -> why it is in its state (WHY column words), when the record says
local labels = {} -- session id -> the short word for a blocked session: tool, else kind
local offline = {} -- host -> true while it cannot be reached
local summary = ""
local job = nil
local partial = ""
local opts = {}

-- States in the order of attention; unknown states follow, sorted.
local order = { "blocked", "working", "idle" }

-- text returns s when it is a non-empty string, else nil (JSON null is
-- vim.NIL).
local function text(s)
  if type(s) == "string" and s ~= "" then
    return s
  end
  return nil
end

-- why returns the words SPEC.md gives for why a session (a statusls --json
-- object) is in its state, as statusls's WHY column shows them, or nil:
-- waitingFor only while blocked, ended only while idle.
function M.why(ev)
  local w, e = ev.waitingFor, ev.ended
  if ev.state == "blocked" and type(w) == "table" and text(w.kind) then
    local tool, detail = text(w.tool), text(w.detail)
    if w.kind == "permission" and tool then
      return detail and (tool .. ": " .. detail) or tool
    end
    return detail and (w.kind .. ": " .. detail) or w.kind
  end
  if ev.state == "idle" and type(e) == "table" and text(e.reason) then
    if e.reason == "rate_limited" then
      return "rate limited"
    end
    local detail = text(e.detail)
    if detail and e.reason ~= "done" and e.reason ~= "cancelled" then
      return e.reason .. ": " .. detail
    end
    return e.reason
  end
  return nil
end

-- label is the word the statusline shows for a blocked session.
local function label(ev)
  local w = ev.waitingFor
  if ev.state ~= "blocked" or type(w) ~= "table" or not text(w.kind) then
    return nil
  end
  if w.kind == "permission" and text(w.tool) then
    return w.tool
  end
  return w.kind
end

-- sorted_keys returns the keys of t, sorted.
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    table.insert(keys, k)
  end
  table.sort(keys)
  return keys
end

local function recompute()
  local counts = {}
  for _, state in pairs(sessions) do
    counts[state] = (counts[state] or 0) + 1
  end
  -- The blocked sessions' words, in session order.
  local words = {}
  for _, id in ipairs(sorted_keys(labels)) do
    table.insert(words, labels[id])
  end
  local parts = {}
  for _, state in ipairs(order) do
    if counts[state] then
      local part = counts[state] .. " " .. state
      if state == "blocked" and #words > 0 then
        part = part .. " (" .. table.concat(words, ", ") .. ")"
      end
      table.insert(parts, part)
      counts[state] = nil
    end
  end
  local rest = {}
  for state, n in pairs(counts) do
    table.insert(rest, n .. " " .. state)
  end
  table.sort(rest)
  for _, p in ipairs(rest) do
    table.insert(parts, p)
  end
  local down = 0
  for _ in pairs(offline) do
    down = down + 1
  end
  if down > 0 then
    table.insert(parts, down .. (down == 1 and " host" or " hosts") .. " offline")
  end
  summary = table.concat(parts, " · ")
end

-- handle applies one event line of `statusls watch --json`: an object with
-- "event", "session" and the record's fields ("state", ...). Events that
-- remove a session from the fresh listing are "removed" and "stale"; every
-- other event that carries a state (the snapshot, "added", "updated",
-- "fresh", ...) sets it. Lines that are not such objects are ignored.
function M.handle(line)
  if line == nil or line == "" then
    return
  end
  local ok, ev = pcall(vim.json.decode, line)
  if not ok or type(ev) ~= "table" then
    return
  end
  -- With --host, every event has "host" (null for this machine).
  local host = type(ev.host) == "string" and ev.host or nil
  if host and (ev.event == "host-offline" or ev.event == "host-online") then
    offline[host] = ev.event == "host-offline" or nil
    recompute()
    return
  end
  if type(ev.session) ~= "string" then
    return
  end
  local key = host and (host .. ":" .. ev.session) or ev.session
  if ev.event == "removed" or ev.event == "stale" then
    sessions[key] = nil
    reasons[key] = nil
    labels[key] = nil
  elseif type(ev.state) == "string" then
    sessions[key] = ev.state
    reasons[key] = M.why(ev)
    labels[key] = label(ev)
  else
    return
  end
  recompute()
end

-- statusline returns the summary, for use inside %{...} in 'statusline',
-- whose result Neovim shows as it is (for %!, escape "%" as "%%").
function M.statusline()
  return summary
end

-- sessions returns a copy of the fresh sessions: id -> state.
function M.sessions()
  return vim.deepcopy(sessions)
end

-- reasons returns a copy of why the fresh sessions are in their state, for
-- those whose record says: id -> words ("Bash: rm -rf build").
function M.reasons()
  return vim.deepcopy(reasons)
end

-- list echoes one line per fresh session: state, id, and why (:AgentStatus).
function M.list()
  local lines = {}
  for _, id in ipairs(sorted_keys(sessions)) do
    local line = sessions[id] .. "  " .. id
    if reasons[id] then
      line = line .. "  " .. reasons[id]
    end
    table.insert(lines, line)
  end
  if #lines == 0 then
    lines = { "no sessions" }
  end
  vim.api.nvim_echo({ { table.concat(lines, "\n") } }, false, {})
end

local function on_stdout(_, data)
  -- data is a list of lines: the first continues the previous partial line,
  -- the last is the start of the next one ("" after a newline).
  if not data then
    return
  end
  data[1] = partial .. data[1]
  partial = table.remove(data)
  for _, line in ipairs(data) do
    M.handle(line)
  end
  vim.cmd("redrawstatus")
end

local start

local function on_exit()
  job = nil
  partial = ""
  sessions = {}
  reasons = {}
  labels = {}
  offline = {}
  recompute()
  vim.cmd("redrawstatus")
  if opts.restart and opts.restart > 0 then
    vim.defer_fn(start, opts.restart * 1000)
  end
end

start = function()
  if job then
    return
  end
  local id = vim.fn.jobstart(opts.cmd, { on_stdout = on_stdout, on_exit = on_exit, stdout_buffered = false })
  if id > 0 then
    job = id
  end
end

function M.setup(o)
  opts = vim.tbl_extend("force", { cmd = { "statusls", "watch", "--json" }, restart = 5 }, o or {})
  start()
  vim.api.nvim_create_autocmd("VimLeavePre", { callback = M.stop })
  vim.api.nvim_create_user_command("AgentStatus", M.list, { desc = "the agents' sessions, and why each is in its state" })
end

-- stop ends the watcher.
function M.stop()
  opts.restart = 0
  if job then
    vim.fn.jobstop(job)
    job = nil
  end
end

return M
