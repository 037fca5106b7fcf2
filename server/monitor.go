package server

// MONITOR support (stub until the MONITOR work lands): feedMonitors is
// called for every command run, so it must cost nothing without monitors.

func (s *Server) feedMonitors(x *call, args [][]byte) {}

func (s *Server) removeMonitor(c *client) {}
