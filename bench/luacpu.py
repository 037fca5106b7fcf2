#!/usr/bin/env python3
# Server CPU per script run beside redis-server: every bench/luashapes shape
# as EVALSHA and as FCALL, at -P 1 and -P 16 (redis-benchmark -c 50), the
# servers interleaved, the minimum of ROUNDS rounds. CPU is the server
# process's user+system time from /proc/<pid>/stat around each run,
# divided by the scripts it ran: unlike throughput it does not move with
# what else the shared machine runs. The last server named is the one the
# ratios divide by (redis-server, usually).
#
#   go build -o /tmp/minilock ./cmd/minilock
#   python3 bench/luacpu.py 3 minilock=/tmp/minilock redis=/usr/bin/redis-server
#   python3 bench/luacpu.py 3 before=/tmp/base/minilock after=/tmp/minilock redis=/usr/bin/redis-server
import subprocess, sys, time, os, json
R = int(sys.argv[1])
servers = [a.split('=',1) for a in sys.argv[2:]]
here = os.path.dirname(os.path.abspath(__file__))
shapes = json.loads(subprocess.check_output(['go', 'run', './bench/cmd/luashapes'], cwd=os.path.dirname(here)))
procs = {}
port = int(os.environ.get('LUACPU_PORT', '7775'))
for name, binp in servers:
    p = subprocess.Popen([binp, '--port', str(port), '--save', '', '--appendonly', 'no'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs[name] = (p, port); port += 1
time.sleep(1)
def cpu(pid):
    f = open('/proc/%d/stat' % pid).read().split(')')[-1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')
def cli(pt, *a):
    return subprocess.check_output(['redis-cli', '-p', str(pt)] + list(a)).decode().strip()
cmds = {}
for name, (p, pt) in procs.items():
    for s in shapes:
        sha = cli(pt, 'script', 'load', s['Body'])
        cli(pt, 'function', 'load', 'replace', s['Lib'])
        keys = s['Keys'] or []
        args = s['Args'] or []
        cmds[(name, s['Name'], 'EVALSHA')] = ['EVALSHA', sha, str(len(keys))] + keys + args
        cmds[(name, s['Name'], 'FCALL')] = ['FCALL', s['Fn'], str(len(keys))] + keys + args
# Every shape's reply is redis-server's first: a fast wrong answer is no
# figure.
for (name, shape, mode), cmd in cmds.items():
    want = next(s['Want'] for s in shapes if s['Name'] == shape)
    got = cli(procs[name][1], *cmd)
    if got != want:
        sys.exit('%s %s %s: %r, want %r' % (name, shape, mode, got, want))
res = {}
for rnd in range(R):
    for s in shapes:
        for mode in ('EVALSHA', 'FCALL'):
            for P in (1, 16):
                n = 20000 if s['Name'] not in ('release', 'gsub', 'strlib') else 100000
                for name, (p, pt) in procs.items():
                    c0 = cpu(p.pid)
                    subprocess.run(['redis-benchmark', '-p', str(pt), '-c', '50', '-n', str(n), '-P', str(P), '-q'] + cmds[(name, s['Name'], mode)], stdout=subprocess.DEVNULL)
                    us = (cpu(p.pid) - c0) / n * 1e6
                    k = (s['Name'], mode, P)
                    res.setdefault(k, {}).setdefault(name, []).append(us)
names = [n for n, _ in servers]
print('| shape | ' + ' | '.join(n + ' us/run' for n in names) + ' | ' + ' | '.join('%s/%s' % (names[-1], n) for n in names[:-1]) + ' |')
for k, v in res.items():
    m = {n: min(v[n]) for n in names}
    print('| %s %s -P %d | ' % k + ' | '.join('%.2f' % m[n] for n in names) + ' | ' + ' | '.join('%.2f' % (m[names[-1]] / m[n]) for n in names[:-1]) + ' |')
for p, _ in procs.values(): p.terminate()
