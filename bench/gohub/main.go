// gohub: an idiomatic Go WebSocket hub speaking enough of Tombola's draw protocol for
// `tombola-bench fanout` to measure it as a peer (BENCHMARKS.md, "Go hub"). One hub
// goroutine owns the clients; each client has a writer goroutine fed by a buffered channel;
// every tick is one websocket.PreparedMessage shared by all clients (encoded once, and with
// -compress deflated once for every client that negotiated permessage-deflate).
//
// Build (GOPATH mode, Debian's gorilla/websocket): bench/gohub/build.sh
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

type client struct {
	conn *websocket.Conn
	send chan *websocket.PreparedMessage
	host bool
}

type command struct {
	from *client
	text []byte
}

type hub struct {
	clients    map[*client]bool
	register   chan *client
	unregister chan *client
	commands   chan command
	key        string
	hz         int
	phase      string
	seq        int64
	ticker     *time.Ticker
}

func prepared(v any) *websocket.PreparedMessage {
	b, _ := json.Marshal(v)
	pm, err := websocket.NewPreparedMessage(websocket.TextMessage, b)
	if err != nil {
		log.Fatal(err)
	}
	return pm
}

func (h *hub) state() *websocket.PreparedMessage {
	return prepared(map[string]any{"type": "state", "phase": h.phase, "viewers": len(h.clients)})
}

// broadcast queues pm on every client; a client whose queue is full skips it (ticks are a
// latest-value stream), as Tombola skips stale ticks for a slow client.
func (h *hub) broadcast(pm *websocket.PreparedMessage) {
	for c := range h.clients {
		select {
		case c.send <- pm:
		default:
		}
	}
}

func (h *hub) run() {
	var tick <-chan time.Time
	for {
		select {
		case c := <-h.register:
			h.clients[c] = true
			c.send <- h.state()
		case c := <-h.unregister:
			if h.clients[c] {
				delete(h.clients, c)
				close(c.send)
			}
		case cmd := <-h.commands:
			var m struct {
				Type string `json:"type"`
				Key  string `json:"key"`
				Seq  *int64 `json:"seq"`
			}
			if json.Unmarshal(cmd.text, &m) != nil {
				continue
			}
			switch m.Type {
			case "auth":
				if m.Key == h.key {
					cmd.from.host = true
					cmd.from.send <- prepared(map[string]any{"type": "role", "role": "host"})
				} else {
					cmd.from.send <- prepared(map[string]any{"type": "error", "code": "bad_key"})
				}
			case "start":
				if cmd.from.host && h.phase != "rolling" {
					h.phase = "rolling"
					h.broadcast(prepared(map[string]any{"type": "phase", "phase": "rolling"}))
					h.ticker = time.NewTicker(time.Second / time.Duration(h.hz))
					tick = h.ticker.C
				}
			case "stop":
				if cmd.from.host && h.phase == "rolling" {
					h.ticker.Stop()
					tick = nil
					h.broadcast(prepared(map[string]any{"type": "phase", "phase": "stopping"}))
					h.phase = "revealed"
					h.broadcast(prepared(map[string]any{"type": "phase", "phase": "revealed"}))
				}
			}
		case now := <-tick:
			h.seq++
			at := float64(now.UnixNano()) / 1e6
			// One frame for everybody: the same bytes, encoded once.
			h.broadcast(prepared(map[string]any{"type": "tick", "seq": h.seq, "at": at, "value": rand.Intn(500) + 1}))
		}
	}
}

var upgrader = websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 1024, CheckOrigin: func(*http.Request) bool { return true }}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &client{conn: conn, send: make(chan *websocket.PreparedMessage, 64)}
	h.register <- c
	go func() {
		for pm := range c.send {
			if conn.WritePreparedMessage(pm) != nil {
				break
			}
		}
		conn.Close()
	}()
	for {
		_, text, err := conn.ReadMessage()
		if err != nil {
			break
		}
		h.commands <- command{from: c, text: text}
	}
	h.unregister <- c
	conn.Close()
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18095", "listen address (loopback)")
	key := flag.String("host-key", "bench-host-key-0123", "the host key")
	hz := flag.Int("tick-hz", 20, "ticks per second while rolling")
	seconds := flag.Int("seconds", 600, "exit after this long (benchmarks stop by themselves)")
	compress := flag.Bool("compress", false, "accept permessage-deflate (gorilla's EnableCompression: no context takeover, flate level 1, every message compressed; a PreparedMessage compresses once per tick)")
	flag.Parse()
	upgrader.EnableCompression = *compress
	if !strings.HasPrefix(*addr, "127.") {
		log.Fatal("loopback only")
	}
	h := &hub{clients: map[*client]bool{}, register: make(chan *client), unregister: make(chan *client, 1024),
		commands: make(chan command, 1024), key: *key, hz: *hz, phase: "idle"}
	go h.run()
	http.HandleFunc("/ws/draw/", h.serve)
	go func() {
		time.Sleep(time.Duration(*seconds) * time.Second)
		log.Fatal("gohub: time is up")
	}()
	fmt.Printf("gohub listening on %s\n", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
