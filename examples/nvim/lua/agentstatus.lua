-- agentstatus.lua: the agents' summary in Neovim's statusline, e.g.
-- "1 blocked · 2 working · 3 idle", kept up to date by `statusls watch --json`
-- (no polling: statusls pushes one JSON line per change).
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
local offline = {} -- host -> true while it cannot be reached
local summary = ""
local job = nil
local partial = ""
local opts = {}

-- States in the order of attention; unknown states follow, sorted.
local order = { "blocked", "working", "idle" }

local function recompute()
  local counts = {}
  for _, state in pairs(sessions) do
    counts[state] = (counts[state] or 0) + 1
  end
  local parts = {}
  for _, state in ipairs(order) do
    if counts[state] then
      table.insert(parts, counts[state] .. " " .. state)
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
  elseif type(ev.state) == "string" then
    sessions[key] = ev.state
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
