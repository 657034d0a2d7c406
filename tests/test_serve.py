"""`cudarl-wb serve` as a user runs it: a real Ray Serve server on loopback, the tiny model, compile-only
verdicts, and a real HTTP client (httpx) against every endpoint, bad input and a burst past the queue."""
import concurrent.futures as cf, json, subprocess, sys
import pytest
from cudarl_wb.serve import ServerProcess

ray = pytest.importorskip('ray', reason='the serve extra (ray[serve]) is not installed')
pytest.importorskip('ray.serve')
httpx = pytest.importorskip('httpx')


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    "One server for the module: `cudarl-wb serve tiny --max-pending 2`, compile-only, on the CPU."
    tmp = tmp_path_factory.mktemp('serve')
    with ServerProcess('tiny', '--turns', 1, '--max-pending', 2, '--compile-only', '--device', 'cpu',
                       '--log', tmp/'rollout.jsonl', log=tmp/'serve.log') as srv:
        yield srv.url, srv.port, tmp


def test_health_and_status(server):
    url, port, _ = server
    r = httpx.get(f'{url}/health', timeout=10)
    assert r.status_code == 200 and r.json()['variants'] == {'current': 'tiny'}
    out = subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'serve', '--status', '--port', str(port)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout)['state'] == 'single', out.stdout + out.stderr


def test_kernel_request_plays_the_loop(server):
    url = server[0]
    r = httpx.post(f'{url}/v1/kernels', json={'task': 'relu'}, timeout=120)
    assert r.status_code == 200, r.text
    a = r.json()
    assert a['task'] == 'relu' and a['mode'] == 'compile-only' and len(a['turns']) == 1
    assert a['turns'][0]['agent'] == 'generator' and isinstance(a['verdict'], str)


def test_kernel_request_streams_its_turns(server):
    url = server[0]
    with httpx.stream('POST', f'{url}/v1/kernels', json={'task': 'relu', 'stream': True}, timeout=120) as r:
        assert r.status_code == 200 and r.headers['content-type'].startswith('application/x-ndjson')
        events = [json.loads(line) for line in r.iter_lines() if line]
    assert events[0]['event'] == 'turn' and events[-1]['event'] == 'answer', events
    assert len(events) == len(events[-1]['turns']) + 1          # each turn as it was judged, then the answer


def test_chat_completions_openai_shape(server):
    url = server[0]
    r = httpx.post(f'{url}/v1/chat/completions', timeout=120,
                   json={'model': 'generator', 'max_tokens': 8, 'messages': [{'role': 'user', 'content': 'relu'}]})
    assert r.status_code == 200, r.text
    c = r.json()
    assert c['object'] == 'chat.completion' and c['choices'][0]['message']['role'] == 'assistant'
    assert 0 < c['usage']['completion_tokens'] <= 8


@pytest.mark.parametrize('body,status', [
    (b'{"task": ', 400),                          # malformed JSON
    (b'\xff\xfe\x00{"task": "relu"}', 400),       # not UTF-8
    (b'{"task": "no-such-task"}', 404),           # unknown task
    (b'{"task": "relu", "reference": "torch.relu"}', 400),   # a reference from the request
    (b'{"task": "' + b'x' * 70_000 + b'"}', 413),  # over the body cap
])
def test_bad_kernel_requests_get_4xx(server, body, status):
    url = server[0]
    r = httpx.post(f'{url}/v1/kernels', content=body, headers={'content-type': 'application/json'}, timeout=60)
    assert r.status_code == status, r.text
    assert r.json()['error']['message']
    assert httpx.get(f'{url}/health', timeout=10).status_code == 200      # the replica is still up


def test_burst_past_the_queue_gets_429_with_retry_after(server):
    url = server[0]
    def one(_):
        return httpx.post(f'{url}/v1/kernels', json={'task': 'gelu'}, timeout=300)
    with cf.ThreadPoolExecutor(8) as pool: rs = list(pool.map(one, range(8)))
    codes = sorted(r.status_code for r in rs)
    assert set(codes) <= {200, 429} and 429 in codes and 200 in codes, codes      # every request answered
    assert all(int(r.headers['retry-after']) >= 1 for r in rs if r.status_code == 429)


def test_metrics_count_what_was_served(server):
    url = server[0]
    text = httpx.get(f'{url}/metrics', timeout=10).text
    from prometheus_client.parser import text_string_to_metric_families
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    served = {(s.labels['endpoint'], s.labels['status']): s.value for s in fams['cudarl_requests'].samples
              if s.name == 'cudarl_requests_total'}
    assert served.get(('kernels', '200'), 0) >= 1 and served.get(('kernels', '404'), 0) >= 1, served
    assert 'cudarl_pending_requests' in fams and 'cudarl_request_seconds' in fams


def test_a_replica_killed_mid_request_answers_and_comes_back(server):
    "The replica's process killed while it plays a request: the client gets an error, not a hang; Serve restarts it."
    import os, signal, threading, time
    url, out = server[0], {}
    def request():
        try: out['status'] = httpx.post(f'{url}/v1/kernels', json={'task': 'gelu'}, timeout=120).status_code
        except httpx.HTTPError as e: out['status'] = repr(e)
    th = threading.Thread(target=request); th.start(); time.sleep(1.0)
    ps = subprocess.run(['pgrep', '-f', 'ServeReplica:cudarl-wb'], capture_output=True, text=True).stdout.split()
    assert ps, 'no replica process found'
    for pid in ps: os.kill(int(pid), signal.SIGKILL)
    th.join(150)
    assert not th.is_alive() and out['status'] in (200, 500, 502, 503), out      # answered, one way or the other
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if httpx.get(f'{url}/health', timeout=5).status_code == 200: break
        except httpx.HTTPError: pass
        time.sleep(1)
    assert httpx.post(f'{url}/v1/kernels', json={'task': 'relu'}, timeout=120).status_code == 200
