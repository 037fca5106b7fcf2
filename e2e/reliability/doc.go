// Package reliability tries, as a hostile or careless client would, to hurt
// a minilock server and its other clients: bad frames, slow and vanished
// readers, killed connections, many clients, protected mode, and hostile
// Lua scripts (hostile_scripts_test.go, each case naming the CVE or Redis
// behaviour it mirrors). The server must answer with Redis's error, close
// only the offending connection, and keep serving everyone else.
//
//	go test -v ./e2e/reliability
//	go test -run TestHostileScripts -v ./e2e/reliability
package reliability
