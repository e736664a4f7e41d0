"""The Python package against the shared fixtures, the command and delta-rs.

Run by `.ci/run` in a virtual environment it creates (`delta-explain-python/tests/run.sh`). The command's
binary (`DX_BIN`) is the reference: the package must print the same document it does.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pyarrow as pa
import pytest

import delta_explain

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(os.environ.get("DELTA_FIXTURES", ROOT.parent / "shared" / "fixtures"))
TAXI = FIXTURES / "taxi-nyc"
MIXED = "pickup_date = '2024-01-03' AND trip_distance > 5"


def command(*args: str) -> dict:
    """The command's JSON report (DX_BIN: the delta-explain binary built by cargo)."""
    binary = os.environ.get("DX_BIN")
    assert binary, "DX_BIN names the delta-explain binary (delta-explain-python/tests/run.sh sets it)"
    out = subprocess.run(
        [binary, *args, "--format", "json"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def without_timing(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "elapsed_ms"}


def test_the_fixtures_are_there():
    assert (TAXI / "_delta_log").is_dir(), f"taxi-nyc under {FIXTURES}"


@pytest.mark.parametrize(
    "predicate",
    [None, MIXED, "fare_amount > 50 OR passenger_count IS NULL", "pickup_date IN ('2024-01-01', '2024-01-05')"],
)
def test_explain_returns_the_commands_document(predicate):
    args = [str(TAXI), "-v", "--limit", "3"]
    if predicate:
        args += ["-w", predicate, "--explain-why"]
    expected = command(*args)
    actual = delta_explain.explain(
        TAXI, predicate, explain_why=predicate is not None, verbose=True, limit=3
    )
    assert without_timing(actual) == without_timing(expected)


def test_the_mixed_predicate_prunes_as_the_readme_says():
    report = delta_explain.explain(str(TAXI), MIXED)
    assert (report["total_files"], report["final_files"]) == (20, 2)
    assert [p["output_files"] for p in report["phases"]] == [4, 2]
    assert report["analysis"]["confidence"] == "conservative"


def test_gates_are_in_the_report():
    report = delta_explain.explain(TAXI, MIXED, min_pruning=95, min_files=1)
    assert report["result"] == "fail"
    outcomes = {a["name"]: a["result"] for a in report["assertions"]}
    assert outcomes == {"min_pruning": "fail", "min_files": "pass"}


def test_explain_many_is_explain_on_one_replay():
    predicates = [MIXED, "fare_amount > 50", "pickup_date >= '2024-01-04'", "trip_distance < 1"]
    many = delta_explain.explain_many(TAXI, predicates)
    why = delta_explain.explain_many(TAXI, predicates, explain_why=True)
    assert len(many) == len(predicates)
    for predicate, report, with_why in zip(predicates, many, why):
        single = delta_explain.explain(TAXI, predicate)
        # The statistics coverage costs a pass over every file's statistics per predicate:
        # many predicates carry it where explain_why reads the statistics anyway.
        assert report["analysis"]["stats_coverage"] is None
        assert with_why["analysis"]["stats_coverage"] == single["analysis"]["stats_coverage"]
        assert single["analysis"]["stats_coverage"] is not None
        single["analysis"]["stats_coverage"] = None
        assert without_timing(report) == without_timing(single)


def test_explain_many_names_a_bad_line_or_keeps_it_in_place():
    predicates = ["fare_amount > 50", "no_such_column = 1", "trip_distance > 5"]
    with pytest.raises(delta_explain.BadInputError, match=r"predicate 1 .*no_such_column"):
        delta_explain.explain_many(TAXI, predicates)
    reports = delta_explain.explain_many(TAXI, predicates, errors="entry")
    assert reports[1]["exit_code"] == 2
    assert "unknown column" in reports[1]["error"]
    assert reports[0]["final_files"] == delta_explain.explain(TAXI, "fare_amount > 50")["final_files"]


def test_files_is_the_per_file_view_as_a_pyarrow_table():
    table = delta_explain.files(TAXI, MIXED)
    assert isinstance(table, pa.Table)
    assert table.num_rows == 20
    assert table.column_names[:7] == [
        "path", "size_bytes", "num_records", "has_stats", "has_deletion_vector", "kept", "pruned_by",
    ]
    rows = table.to_pylist()
    assert sum(r["kept"] for r in rows) == 2
    assert {r["pruned_by"] for r in rows if not r["kept"]} == {
        "Partition pruning",
        "Data skipping (min/max statistics)",
    }
    kept = [r for r in rows if r["kept"]]
    assert all(dict(r["partition_values"]) == {"pickup_date": "2024-01-03"} for r in kept)
    # Each kept file's recorded bounds admit the predicate's data fragment.
    assert all(json.loads(r["max_values"])["trip_distance"] > 5 for r in kept)
    # The same survivors as the command's per-file view.
    expected = command(str(TAXI), "-w", MIXED, "-v")
    assert sorted(r["path"] for r in kept) == sorted(
        f["path"] for f in expected["files"] if f["kept"]
    )


def test_errors_carry_the_commands_exit_code_classes():
    with pytest.raises(delta_explain.BadInputError) as bad:
        delta_explain.explain(TAXI, "fare_amount >")
    assert bad.value.exit_code == 2
    assert isinstance(bad.value, delta_explain.DeltaExplainError)
    with pytest.raises(delta_explain.BadInputError, match="unknown column"):
        delta_explain.explain(TAXI, "fare > 1")
    with pytest.raises(delta_explain.TableError) as missing:
        delta_explain.explain(FIXTURES / "no-such-table", "x = 1")
    assert missing.value.exit_code == 3
    with pytest.raises(delta_explain.BadInputError):
        delta_explain.explain(TAXI, "fare_amount > 1", min_pruning=120)
    with pytest.raises(delta_explain.BadInputError, match="verify needs a predicate"):
        delta_explain.explain(TAXI, verify=True)


def test_time_travel_reads_the_asked_version():
    latest = delta_explain.explain(TAXI)
    first = delta_explain.explain(TAXI, version=0)
    assert first["version"] == 0
    assert without_timing(first) == without_timing(command(str(TAXI), "--at-version", "0"))
    assert latest["version"] >= first["version"]


def test_verify_and_ranges_reach_the_data():
    report = delta_explain.explain(
        TAXI, "fare_amount BETWEEN 84 AND 85", verify=True, ranges=["fare_amount"]
    )
    stages = {s["name"]: s for s in report["verify"]["stages"]}
    assert stages["matching"]["files"] == 6
    assert report["verify"]["dropped_matching_files"] == []
    assert report["ranges"][0]["column"] == "fare_amount"
    assert len(report["ranges"][0]["files"]) == 20


def test_the_kept_files_agree_with_delta_rs_file_uris():
    """delta-rs prunes files for a SQL predicate (`file_uris(file_pruning_predicate=...)`):
    partition filters exactly, data filters by min/max. Its set is our final survivor set."""
    from deltalake import DeltaTable

    dt = DeltaTable(str(TAXI))
    for predicate in [
        "pickup_date = '2024-01-03'",
        "pickup_date IN ('2024-01-01', '2024-01-05')",
        "pickup_date != '2024-01-02'",
        MIXED,
        "fare_amount BETWEEN 84 AND 85",
        "trip_distance > 20 OR pickup_date = '2024-01-01'",
    ]:
        ours = {
            pathlib.PurePosixPath(r["path"]).name
            for r in delta_explain.files(TAXI, predicate).to_pylist()
            if r["kept"]
        }
        theirs = {
            pathlib.PurePosixPath(u).name
            for u in dt.file_uris(file_pruning_predicate=predicate)
        }
        assert ours == theirs, predicate
        assert 0 < len(theirs) < 20, predicate


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_taxi(tmp_path_factory):
    """taxi-nyc in a bucket of a moto S3 server on 127.0.0.1."""
    import boto3

    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            region_name="us-east-1",
        )
        client.create_bucket(Bucket="lake")
        for path in TAXI.rglob("*"):
            if path.is_file():
                key = "taxi/" + path.relative_to(TAXI).as_posix()
                client.upload_file(str(path), "lake", key)
        yield endpoint
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_storage_options_reach_an_s3_table_as_delta_rs_takes_them(s3_taxi):
    options = {
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": s3_taxi,
        "AWS_ALLOW_HTTP": "true",
    }
    remote = delta_explain.explain("s3://lake/taxi", MIXED, storage_options=options)
    local = delta_explain.explain(TAXI, MIXED)
    assert remote["final_files"] == local["final_files"] == 2
    assert [p["output_files"] for p in remote["phases"]] == [4, 2]
    # Wrong credentials: a table error naming no secret.
    bad = {**options, "AWS_SECRET_ACCESS_KEY": "not-the-secret-value"}
    with pytest.raises(delta_explain.TableError) as error:
        delta_explain.explain("s3://lake/nothing-here", MIXED, storage_options=bad)
    assert "not-the-secret-value" not in str(error.value)


def test_the_package_is_typed():
    package = pathlib.Path(delta_explain.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "__init__.pyi").is_file()
    for name in ("explain", "explain_many", "files"):
        assert getattr(delta_explain, name).__doc__


def _stub_parameters(stub: pathlib.Path, name: str) -> list:
    """``name``'s parameters in the stub file: (name, kind, default as written)."""
    tree = ast.parse(stub.read_text())
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    args = function.args
    positional = args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [(a.arg, "positional", d) for a, d in zip(positional, defaults)]
    out += [(a.arg, "keyword", d) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return [(n, k, None if d is None else ast.unparse(d)) for n, k, d in out]


def _runtime_parameters(function) -> list:
    kinds = {
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
    }
    out = []
    for p in inspect.signature(function).parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        out.append((p.name, kinds[p.kind], default))
    return out


def test_the_signatures_are_the_librarys_options_and_the_stubs_hold_them():
    # The library spells the options once (`request::Options`); the package's keyword
    # arguments are exactly those, `verify` and `ranges` aside for `explain_many`.
    options = list(delta_explain._native.OPTIONS)
    assert "strict" in options and "min_pruning" in options, options
    store = {"storage_options", "version", "catalog", "catalog_url", "catalog_profile"}
    keywords = lambda f: [  # noqa: E731
        name for name, kind, _ in _runtime_parameters(f) if kind == "keyword" and name not in store
    ]
    assert sorted(keywords(delta_explain.explain)) == sorted(options)
    assert sorted(k for k in keywords(delta_explain.explain_many) if k != "errors") == sorted(
        o for o in options if o not in ("verify", "ranges", "referenced_ranges")
    )
    # An option the library does not have is refused, not ignored.
    with pytest.raises(delta_explain.BadInputError, match="unknown field"):
        delta_explain._native.explain(str(TAXI), None, options='{"strikt": true}')
    # The stubs say what the functions take: names, kinds and defaults.
    package = pathlib.Path(delta_explain.__file__).parent
    for name in ("explain", "explain_many", "files"):
        assert _stub_parameters(package / "__init__.pyi", name) == [
            (n, k, "()" if d == "()" else d) for n, k, d in _runtime_parameters(getattr(delta_explain, name))
        ], name
    for name in ("explain", "explain_many"):
        assert _stub_parameters(package / "_native.pyi", name) == _runtime_parameters(
            getattr(delta_explain._native, name)
        ), name


def test_explain_many_takes_explains_options():
    reports = delta_explain.explain_many(
        TAXI, [MIXED, "trip_distance > 5"], verbose=True, limit=2, explain_why=True, min_files=3
    )
    for report in reports:
        assert len(report["files"]) <= 2
        assert "diagnoses" in report
    assert [r["result"] for r in reports] == ["fail", "pass"]


def test_an_empty_binary_partition_value_is_kept_whichever_way_it_is_read(tmp_path):
    # delta-rs writes an empty non-NULL binary partition value as "" and reads it back as NULL;
    # delta_kernel reads the empty binary. The explainer keeps its file under either reading.
    import deltalake

    table = tmp_path / "binary"
    data = pa.table(
        {
            "b": pa.array([b"", None, b"ab"], pa.binary()),
            "v": pa.array([1, 2, 3], pa.int64()),
        }
    )
    deltalake.write_deltalake(str(table), data, partition_by=["b"])
    adds = [
        json.loads(line)["add"]
        for line in (table / "_delta_log" / "00000000000000000000.json").read_text().splitlines()
        if "add" in json.loads(line)
    ]
    empty = [a["path"] for a in adds if a["partitionValues"]["b"] == ""]
    assert len(empty) == 1, adds
    read_back = deltalake.DeltaTable(str(table)).to_pyarrow_table().to_pydict()
    assert read_back["b"][read_back["v"].index(1)] is None, read_back
    for where in ("b IS NULL", "b IS NOT NULL"):
        report = delta_explain.explain(table, where, verbose=True, strict=True)
        kept = [f["path"] for f in report["files"] if f["kept"]]
        # The file name is unique; its folder is percent-encoded differently by each reader.
        name = empty[0].rsplit("/", 1)[-1]
        assert any(p.endswith(name) for p in kept), (where, kept, name)
        codes = [n["code"] for n in report["analysis"]["notes"]]
        assert "PARTITION_VALUE_DISTRUSTED" in codes, (where, codes)


def test_the_module_exposes_its_api_and_nothing_else():
    # `import json` or `from typing import Dict` in the package made `delta_explain.json` and
    # `delta_explain.Dict` look like its API.
    public = {name for name in dir(delta_explain) if not name.startswith("_")}
    assert public == set(delta_explain.__all__) - {"__version__"}, public


def test_errors_are_named_as_the_package_exports_them():
    import traceback

    with pytest.raises(delta_explain.BadInputError) as caught:
        delta_explain.explain(str(TAXI), "nosuch = 1")
    shown = "".join(traceback.format_exception_only(caught.type, caught.value))
    assert shown.startswith("delta_explain.BadInputError: "), shown
    assert "_native" not in shown, shown
    for error in (delta_explain.DeltaExplainError, delta_explain.TableError):
        assert error.__module__ == "delta_explain"


def test_pandas_is_an_extra_and_to_pandas_works_with_it():
    import tomllib

    project = tomllib.loads((ROOT / "delta-explain-python" / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("pandas") for d in project["optional-dependencies"]["pandas"])
    assert not any(d.startswith("pandas") for d in project["dependencies"])
    frame = delta_explain.files(str(TAXI), MIXED).to_pandas()
    assert int(frame["kept"].sum()) == 2


UC_TOKEN = "dapi-SECRET-python-0123456789"


def _call(method: str, url: str, body: dict | None = None) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, {}
    except OSError:
        return 0, {}


@pytest.fixture(scope="module")
def unity(tmp_path_factory):
    """The open-source Unity Catalog server (crates.io olai-uc-server, which `.ci/run` installs
    before this suite runs) on 127.0.0.1, with taxi-nyc registered as `fixtures.real.taxi_nyc`;
    the endpoint, and the environment the command would read."""
    binary = os.environ.get("DX_UC_SERVER") or os.path.expanduser(
        "~/.cache/delta-explain/tools/bin/uc-server"
    )
    assert os.access(binary, os.X_OK), (
        f"no uc-server at {binary}: `bash .ci/run` installs it (cargo install --locked "
        "olai-uc-server --version 0.0.11 --features bin --root ~/.cache/delta-explain/tools), "
        "or set DX_UC_SERVER"
    )
    scratch = tmp_path_factory.mktemp("unity")
    root = FIXTURES.resolve()
    managed = scratch / "managed"
    managed.mkdir()
    config = scratch / "uc.yaml"
    config.write_text(
        f"local_storage:\n  allowed-roots:\n    - {root}\n    - {managed}\nui:\n  serve: false\n"
    )
    port = free_port()
    log = (scratch / "server.log").open("w")
    server = subprocess.Popen(
        [binary, "serve", "--config", str(config), "--host", "127.0.0.1", "--port", str(port), "--no-ui"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "NO_COLOR": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    api = f"{url}/api/2.1/unity-catalog/"
    try:
        # A readiness wait (300 tries 200 ms apart), not a measure of time.
        for _ in range(300):
            if _call("GET", api + "catalogs")[0] == 200:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("uc-server did not answer")

        def create(what: str, body: dict) -> None:
            status, answer = _call("POST", api + what, body)
            assert status == 200, f"create {what} {body}: {status} {answer}"

        # file:// locations need an external location with a storage credential (which
        # vends nothing for local files); the managed catalog a storage root inside one.
        create(
            "credentials",
            {
                "name": "local_files",
                "purpose": "STORAGE",
                "azure_storage_key": {"account_name": "unused", "account_key": "dW51c2Vk"},
            },
        )
        for name, path in [("shared_fixtures", root), ("managed_root", managed)]:
            create(
                "external-locations",
                {"name": name, "url": f"file://{path}", "credential_name": "local_files"},
            )
        create("catalogs", {"name": "fixtures", "storage_root": f"file://{managed}"})
        create("schemas", {"name": "real", "catalog_name": "fixtures"})
        create(
            "tables",
            {
                "name": "taxi_nyc",
                "catalog_name": "fixtures",
                "schema_name": "real",
                "table_type": "EXTERNAL",
                "data_source_format": "DELTA",
                "storage_location": f"file://{TAXI.resolve()}",
                "properties": {},
            },
        )
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def test_a_table_named_in_unity_catalog_explains_as_by_its_path(unity, monkeypatch):
    # The token as Databricks tools read it; the endpoint from the keyword, as --catalog-url.
    monkeypatch.setenv("DATABRICKS_TOKEN", UC_TOKEN)
    monkeypatch.delenv("DATABRICKS_HOST", raising=False)
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", "/nonexistent/databrickscfg")
    name = "fixtures.real.taxi_nyc"
    comparable = lambda r: {k: v for k, v in r.items() if k not in ("elapsed_ms", "table")}  # noqa: E731
    by_name = delta_explain.explain(
        name, MIXED, catalog="unity", catalog_url=unity, explain_why=True, verbose=True
    )
    by_path = delta_explain.explain(TAXI, MIXED, explain_why=True, verbose=True)
    assert comparable(by_name) == comparable(by_path)
    assert by_name["final_files"] == 2
    assert by_name["table"].startswith("file://"), by_name["table"]
    # Many predicates over one replay, and the per-file view, by name too.
    many = delta_explain.explain_many(
        name, [MIXED, "trip_distance > 5"], catalog="unity", catalog_url=unity
    )
    assert [r["final_files"] for r in many] == [
        r["final_files"] for r in delta_explain.explain_many(TAXI, [MIXED, "trip_distance > 5"])
    ]
    view = delta_explain.files(name, MIXED, catalog="unity", catalog_url=unity)
    assert view.num_rows == by_path["total_files"]
    # The endpoint from the environment, as the command reads DATABRICKS_HOST.
    monkeypatch.setenv("DATABRICKS_HOST", unity)
    assert comparable(delta_explain.explain(name, MIXED, catalog="unity", explain_why=True, verbose=True)) == comparable(by_path)


def test_catalog_errors_are_the_commands_classes_and_name_no_token(unity, monkeypatch):
    monkeypatch.setenv("DATABRICKS_TOKEN", UC_TOKEN)
    monkeypatch.setenv("DATABRICKS_HOST", unity)
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", "/nonexistent/databrickscfg")
    # A name the catalog does not hold: a table error (exit 3), as on the command line.
    with pytest.raises(delta_explain.TableError) as missing:
        delta_explain.explain("fixtures.real.nothing_here", MIXED, catalog="unity")
    assert "nothing_here" in str(missing.value)
    expected = subprocess.run(
        [os.environ["DX_BIN"], "fixtures.real.nothing_here", "-w", MIXED, "--catalog", "unity"],
        capture_output=True,
        text=True,
    )
    assert expected.returncode == missing.value.exit_code == 3
    # A name that is not catalog.schema.table, an unknown catalog, a catalog's option without
    # a catalog: bad input (exit 2).
    for call in [
        lambda: delta_explain.explain("taxi_nyc", MIXED, catalog="unity"),
        lambda: delta_explain.explain("fixtures.real.taxi_nyc", MIXED, catalog="glue"),
        lambda: delta_explain.explain(TAXI, MIXED, catalog_url=unity),
    ]:
        with pytest.raises(delta_explain.BadInputError) as bad:
            call()
        assert bad.value.exit_code == 2
        assert UC_TOKEN not in str(bad.value)
    assert UC_TOKEN not in str(missing.value)


def test_time_functions_are_bound_to_now():
    report = delta_explain.explain(TAXI, "pickup_date = current_date()", now="2024-01-03")
    assert report["bindings"] == [{"function": "current_date()", "value": "DATE '2024-01-03'"}]
    assert report["predicate"] == "pickup_date = current_date()"
    expected = command(str(TAXI), "-w", "pickup_date = current_date()", "--now", "2024-01-03")
    assert without_timing(report) == without_timing(expected)
    many = delta_explain.explain_many(TAXI, ["pickup_date = current_date()"], now="2024-01-03")
    assert many[0]["bindings"] == report["bindings"]
    with pytest.raises(delta_explain.BadInputError, match="yesterday"):
        delta_explain.explain(TAXI, "pickup_date = current_date()", now="yesterday")
