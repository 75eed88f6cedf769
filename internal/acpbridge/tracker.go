package acpbridge

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

// SessionPrefix begins the session id of every record the proxy writes:
// "acp:" and the ACP session id (SPEC.md A3). No agent's hook session id
// begins with it, so the two never name the same record.
const SessionPrefix = "acp:"

// Direction says who sent a line.
type Direction int

const (
	// FromEditor is a line the editor (the ACP client) sent to the agent.
	FromEditor Direction = iota
	// FromAgent is a line the agent sent to the editor.
	FromAgent
)

func (d Direction) String() string {
	if d == FromAgent {
		return "agent"
	}
	return "editor"
}

// Record is what one session's record should say.
type Record struct {
	State   statusfile.State
	Title   string
	Cwd     string // "" when the editor named none
	Waiting statusfile.Waiting
	Ended   statusfile.Ended
}

// Update is one change of a session's record: Record, or, with Gone, its
// removal.
type Update struct {
	Session string // SessionPrefix and the ACP session id
	Gone    bool
	Record  Record
}

// Bounds on what a Tracker remembers: requests not answered yet, and
// sessions. Beyond them the oldest request is forgotten, and a new
// session is not published.
const (
	maxPending  = 4096
	maxSessions = 1024
)

// Tracker turns the messages of one ACP connection, seen in the order
// they were sent, into record updates (SPEC.md §13.5). It does no I/O;
// its zero value is not ready, use [NewTracker]. It is not safe for
// concurrent use.
type Tracker struct {
	now       func() time.Time
	version   int                // the protocol version the agent answered; 0: unknown
	fromEd    map[string]request // requests of the editor, by id
	fromAgent map[string]request // requests of the agent, by id
	sessions  map[string]*session
}

type request struct {
	method, session, cwd string
	wait                 statusfile.Waiting // what a request of the agent waits for
}

type session struct {
	id, name     string // the ACP id; the record's session id
	rec          Record
	last         Record // as last updated
	published    bool
	titled       bool // the agent titled the session (session_info_update)
	inTurn       bool // between a prompt and the end of its turn
	cancelled    bool // session/cancel came during the turn
	stateUpdates bool // the agent sends state_update
	waits        []string
}

// NewTracker returns a tracker that stamps waits and turn ends with now
// (nil: the system clock).
func NewTracker(now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	return &Tracker{now: now, fromEd: map[string]request{}, fromAgent: map[string]request{}, sessions: map[string]*session{}}
}

// Sessions returns the record names of the sessions the tracker has
// published and not removed.
func (t *Tracker) Sessions() []string {
	var names []string
	for _, s := range t.sessions {
		if s.published {
			names = append(names, s.name)
		}
	}
	return names
}

// message is the part of a JSON-RPC message the tracker reads. Keys are
// matched exactly by check.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// Observe reads one line that d sent and returns the updates it makes.
// truncated says the line is only the head of a longer one (see [Copy]).
// A line that is not JSON-RPC, or that says nothing about a session,
// makes none.
func (t *Tracker) Observe(d Direction, line []byte, truncated bool) []Update {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if truncated {
		m, ok := head(line)
		if !ok {
			return nil
		}
		return t.message(d, m)
	}
	switch line[0] {
	case '{':
		var m message
		if json.Unmarshal(line, &m) != nil {
			return nil
		}
		return t.message(d, m)
	case '[': // a batch: ACP sends none, but each element is a message
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil {
			return nil
		}
		var ups []Update
		for _, raw := range batch {
			var m message
			if json.Unmarshal(raw, &m) == nil {
				ups = append(ups, t.message(d, m)...)
			}
		}
		return ups
	}
	return nil
}

// idKey is a request id as a map key; "" for none (a notification).
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

func (t *Tracker) message(d Direction, m message) []Update {
	id := idKey(m.ID)
	switch {
	case m.Method != "" && id != "":
		return t.request(d, id, m)
	case m.Method != "":
		return t.notification(d, m)
	case id != "" && (len(m.Result) > 0 || m.Error != nil):
		return t.response(d, id, m)
	}
	return nil
}

func remember(reqs map[string]request, id string, r request) {
	if _, ok := reqs[id]; !ok && len(reqs) >= maxPending {
		for k := range reqs { // forget one: an agent that never answers
			delete(reqs, k)
			break
		}
	}
	reqs[id] = r
}

// sessionParams are the params of the requests the tracker reads.
type sessionParams struct {
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	Prompt    []contentBlock  `json:"prompt"`
	Update    json.RawMessage `json:"update"`
	// session/request_permission: v1 names the tool call; v2 titles the
	// prompt and may name a subject.
	ToolCall *toolCall `json:"toolCall"`
	Title    *string   `json:"title"`
	Subject  *struct {
		Type     string    `json:"type"`
		ToolCall *toolCall `json:"toolCall"`
		Command  *string   `json:"command"`
	} `json:"subject"`
	Message         string `json:"message"` // elicitation/create
	ProtocolVersion *int   `json:"protocolVersion"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolCall struct {
	Title *string `json:"title"`
	Kind  *string `json:"kind"`
}

func params(raw json.RawMessage) sessionParams {
	var p sessionParams
	json.Unmarshal(raw, &p) // what does not parse is left empty
	return p
}

func (t *Tracker) request(d Direction, id string, m message) []Update {
	p := params(m.Params)
	if d == FromEditor {
		switch m.Method {
		case "session/new", "session/fork", "session/load", "session/resume", "session/close", "session/delete":
			remember(t.fromEd, id, request{method: m.Method, session: p.SessionID, cwd: p.Cwd})
		case "session/prompt":
			remember(t.fromEd, id, request{method: m.Method, session: p.SessionID})
			s := t.session(p.SessionID, true)
			if s == nil {
				return nil
			}
			s.inTurn, s.cancelled, s.waits = true, false, nil
			s.rec.State, s.rec.Waiting, s.rec.Ended = statusfile.Working, statusfile.Waiting{}, statusfile.Ended{}
			if !s.titled && s.rec.Title == "" {
				s.rec.Title = promptTitle(p.Prompt)
			}
			return t.changed(s)
		case "initialize":
			remember(t.fromEd, id, request{method: m.Method})
		}
		return nil
	}
	var w statusfile.Waiting
	switch m.Method {
	case "session/request_permission":
		w = statusfile.Waiting{Kind: "permission"}
		tc := p.ToolCall
		if p.Subject != nil && p.Subject.ToolCall != nil {
			tc = p.Subject.ToolCall
		}
		if tc != nil {
			w.Tool, w.Detail = deref(tc.Kind), deref(tc.Title)
		}
		if p.Subject != nil && p.Subject.Command != nil {
			w.Detail = *p.Subject.Command
		}
		if w.Detail == "" {
			w.Detail = deref(p.Title)
		}
	case "elicitation/create":
		w = statusfile.Waiting{Kind: "question", Detail: p.Message}
	default:
		return nil
	}
	s := t.session(p.SessionID, true)
	if s == nil {
		return nil
	}
	w.Since = t.now()
	remember(t.fromAgent, id, request{method: m.Method, session: s.id, wait: w})
	s.waits = append(s.waits, id)
	s.rec.State, s.rec.Waiting = statusfile.Blocked, w
	return t.changed(s)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// promptTitle is the first line of the prompt's first text.
func promptTitle(blocks []contentBlock) string {
	for _, b := range blocks {
		if b.Type != "text" {
			continue
		}
		for l := range strings.Lines(b.Text) {
			if l = strings.TrimSpace(l); l != "" {
				return l
			}
		}
	}
	return ""
}

func (t *Tracker) notification(d Direction, m message) []Update {
	p := params(m.Params)
	switch {
	case d == FromEditor && m.Method == "session/cancel":
		if s := t.session(p.SessionID, false); s != nil && s.inTurn {
			s.cancelled = true
		}
	case d == FromAgent && m.Method == "session/update":
		var u struct {
			Kind       string          `json:"sessionUpdate"`
			Title      json.RawMessage `json:"title"`
			State      string          `json:"state"`
			StopReason *string         `json:"stopReason"`
		}
		if json.Unmarshal(p.Update, &u) != nil {
			return nil
		}
		switch u.Kind {
		case "session_info_update":
			if len(u.Title) == 0 {
				return nil
			}
			s := t.session(p.SessionID, true)
			if s == nil {
				return nil
			}
			var title *string
			json.Unmarshal(u.Title, &title)
			s.titled, s.rec.Title = true, deref(title)
			return t.changed(s)
		case "state_update":
			s := t.session(p.SessionID, true)
			if s == nil {
				return nil
			}
			s.stateUpdates = true
			switch u.State {
			case "running":
				s.inTurn = true
				s.rec.State, s.rec.Waiting, s.rec.Ended = statusfile.Working, statusfile.Waiting{}, statusfile.Ended{}
			case "requires_action":
				s.rec.State = statusfile.Blocked
			case "idle":
				t.endTurn(s, deref(u.StopReason), nil)
			default:
				return nil
			}
			return t.changed(s)
		}
	}
	return nil
}

func (t *Tracker) response(d Direction, id string, m message) []Update {
	if d == FromEditor { // the editor answers the agent
		req, ok := t.fromAgent[id]
		if !ok {
			return nil
		}
		delete(t.fromAgent, id)
		s := t.session(req.session, false)
		if s == nil {
			return nil
		}
		i := len(s.waits) - 1
		for ; i >= 0 && s.waits[i] != id; i-- {
		}
		if i < 0 {
			return nil
		}
		s.waits = append(s.waits[:i], s.waits[i+1:]...)
		if s.rec.State != statusfile.Blocked {
			return nil
		}
		if n := len(s.waits); n > 0 {
			s.rec.Waiting = t.fromAgent[s.waits[n-1]].wait
		} else {
			s.rec.State, s.rec.Waiting = statusfile.Working, statusfile.Waiting{}
		}
		return t.changed(s)
	}
	req, ok := t.fromEd[id]
	if !ok {
		return nil
	}
	delete(t.fromEd, id)
	var r struct {
		SessionID       string  `json:"sessionId"`
		StopReason      *string `json:"stopReason"`
		ProtocolVersion *int    `json:"protocolVersion"`
	}
	if len(m.Result) > 0 {
		json.Unmarshal(m.Result, &r)
	}
	switch req.method {
	case "initialize":
		if r.ProtocolVersion != nil {
			t.version = *r.ProtocolVersion
		}
	case "session/new", "session/fork", "session/load", "session/resume":
		if m.Error != nil {
			return nil
		}
		sid := req.session
		if req.method == "session/new" || req.method == "session/fork" {
			sid = r.SessionID
		}
		s := t.session(sid, true)
		if s == nil {
			return nil
		}
		s.inTurn, s.cancelled, s.waits = false, false, nil
		s.rec.State, s.rec.Waiting, s.rec.Ended = statusfile.Idle, statusfile.Waiting{}, statusfile.Ended{}
		if req.cwd != "" {
			s.rec.Cwd = req.cwd
		}
		return t.changed(s)
	case "session/close", "session/delete":
		s := t.session(req.session, false)
		if m.Error != nil || s == nil {
			return nil
		}
		delete(t.sessions, s.id)
		if !s.published {
			return nil
		}
		return []Update{{Session: s.name, Gone: true}}
	case "session/prompt":
		s := t.session(req.session, false)
		if s == nil || !s.inTurn {
			return nil // the turn ended already (state_update)
		}
		switch {
		case m.Error != nil:
			t.endTurn(s, "", m.Error)
		case r.StopReason != nil:
			t.endTurn(s, *r.StopReason, nil)
		case t.version >= 2 || s.stateUpdates:
			return nil // accepted: state_update says when the turn ends
		default:
			t.endTurn(s, "", nil)
		}
		return t.changed(s)
	}
	return nil
}

// endTurn makes s idle, ended as stop says (a stop reason, or an error).
func (t *Tracker) endTurn(s *session, stop string, e *rpcError) {
	s.inTurn, s.waits = false, nil
	s.rec.State, s.rec.Waiting = statusfile.Idle, statusfile.Waiting{}
	end := statusfile.Ended{At: t.now()}
	switch {
	case s.cancelled || stop == "cancelled":
		end.Reason = "cancelled"
	case e != nil:
		end.Reason, end.Detail = "failed", firstLine(e.Message)
		if rateLimited(e) {
			end.Reason = "rate_limited"
		}
	case stop == "end_turn":
		end.Reason = "done"
	case stop != "": // refusal, max_tokens, max_turn_requests, and future ones
		end.Reason, end.Detail = "failed", stop
	default:
		end = statusfile.Ended{}
	}
	s.cancelled = false
	s.rec.Ended = end
}

func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// rateLimited reports whether a prompt's error says the model refused for
// a rate or a quota: HTTP 429, or the words providers use for it.
func rateLimited(e *rpcError) bool {
	if e.Code == 429 {
		return true
	}
	text := strings.ToLower(e.Message + " " + string(e.Data))
	for _, w := range []string{"rate limit", "rate_limit", "ratelimit", "too many requests", "resource_exhausted", "resource exhausted", "quota", " 429", "\"429\"", "status 429", "code\":429"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// session returns the session with ACP id sid, made when create is set
// and sid can name a record; nil otherwise.
func (t *Tracker) session(sid string, create bool) *session {
	if s, ok := t.sessions[sid]; ok {
		return s
	}
	if !create || sid == "" || len(t.sessions) >= maxSessions {
		return nil
	}
	name := SessionPrefix + sid
	if statusfile.ValidateSession(name) != nil {
		return nil
	}
	s := &session{id: sid, name: name, rec: Record{State: statusfile.Idle}}
	t.sessions[sid] = s
	return s
}

// changed returns the update of s when its record changed since the last.
func (t *Tracker) changed(s *session) []Update {
	if s.published && s.rec == s.last {
		return nil
	}
	s.published, s.last = true, s.rec
	return []Update{{Session: s.name, Record: s.rec}}
}

// head reads what it can of the head of a long line: the top-level
// "jsonrpc", "id", "method" and params' "sessionId", in the order they
// come, up to the first value it cannot read whole.
func head(b []byte) (message, bool) {
	var m message
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return m, false
	}
	var sid string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		switch key {
		case "id", "method", "jsonrpc":
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				goto done
			}
			switch key {
			case "id":
				m.ID = raw
			case "method":
				json.Unmarshal(raw, &m.Method)
			}
		case "params":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				goto done
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					goto done
				}
				if k, _ := tok.(string); k == "sessionId" {
					if dec.Decode(&sid) != nil {
						goto done
					}
					goto done // enough: the rest is what made the line long
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					goto done
				}
			}
			goto done
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				goto done
			}
		}
	}
done:
	if sid != "" {
		p, _ := json.Marshal(map[string]string{"sessionId": sid})
		m.Params = p
	}
	// Only a request that names its method and id is worth reading: a
	// prompt's text, which made it long, is not needed to mark the turn.
	return m, m.Method != "" && idKey(m.ID) != ""
}
