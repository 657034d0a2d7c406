"""Requests per second and latency of `POST /v1/kernels` at 1, 8 and 32 concurrent clients.

Run from the repository root (the serve extra installed):

    python bench/serve_bench.py [--checkpoint tiny] [--clients 1,8,32] [--requests 64] [--turns 2] [--compile-only]

Starts `cudarl-wb serve CHECKPOINT` on loopback, sends each client count its requests (procedural test tasks, in
turn) and prints, per count: requests/s, p50 and p95 latency, the mean batch the decode engine played (how many
concurrent requests shared one batched generate), 429s and errors. Writes bench/results/serve_bench.json. On a
machine without a GPU the verdicts are compile-only, as in training; the card, where there is one, is named.
"""
import argparse, concurrent.futures as cf, json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from _table import results_dir, table


def level(client, tasks, clients: int, n: int) -> dict:
    "Send `n` requests with `clients` at once; their latencies, batches and statuses."
    def one(i):
        t0 = time.perf_counter()
        r = client.post('/v1/kernels', json={'task': tasks[i % len(tasks)]})
        return time.perf_counter() - t0, r.status_code, (r.json().get('batch') if r.status_code == 200 else None)
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(clients) as pool: rs = list(pool.map(one, range(n)))
    wall = time.perf_counter() - t0
    ok = sorted(s for s, code, _ in rs if code == 200)
    out = dict(clients=clients, requests=n, ok=len(ok), refused=sum(c == 429 for _, c, _ in rs),
               errors=sum(c not in (200, 429) for _, c, _ in rs), rps=round(len(ok) / wall, 2), p50_s=None, p95_s=None, mean_batch=None)
    if ok:
        p95 = statistics.quantiles(ok, n=20)[18] if len(ok) > 1 else ok[0]
        out.update(p50_s=round(statistics.median(ok), 2), p95_s=round(p95, 2), mean_batch=round(statistics.mean(b for _, c, b in rs if c == 200), 1))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--checkpoint', default='tiny')
    p.add_argument('--clients', default='1,8,32')
    p.add_argument('--requests', type=int, default=64, help='requests at each client count (at least 4 a client)')
    p.add_argument('--turns', type=int, default=2)
    p.add_argument('--compile-only', action='store_true')
    a = p.parse_args(argv)
    import httpx, torch
    from cudarl_wb.serve import ServerProcess
    from cudarl_wb.tasks import procedural_tasks
    card = torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU (compile-only)'
    tasks = [t.name for t in procedural_tasks(64, seed=0, split='test')]
    counts = [int(c) for c in a.clients.split(',')]
    args = [a.checkpoint, '--turns', a.turns, '--max-pending', 2 * max(counts)] + (['--compile-only'] if a.compile_only else [])
    rows = []
    with ServerProcess(*args) as srv, httpx.Client(base_url=srv.url, timeout=600) as client:
        client.post('/v1/kernels', json={'task': tasks[0]})          # the first request loads and compiles what it needs
        for c in counts:
            rows.append(level(client, tasks, c, max(a.requests, 4 * c)))
            print(f'{c} clients: {rows[-1]["rps"]} requests/s', flush=True)
    print(f'POST /v1/kernels on {card}, checkpoint {a.checkpoint}, {a.turns} turns:')
    table(rows, ['clients', 'requests', 'ok', 'refused', 'errors', 'rps', 'p50_s', 'p95_s', 'mean_batch'])
    out = results_dir()/'serve_bench.json'
    out.write_text(json.dumps(dict(card=card, checkpoint=a.checkpoint, turns=a.turns, rows=rows), indent=1))
    print(f'wrote {out}')


if __name__ == '__main__': main()
