"""Records of any byte size through the page cache (IOR's -t 47008, IO500's ior-hard transfer):
N-to-N, shared segmented and shared strided at 1, 2 and 3 ranks read back every byte
(--verify) with exact filter counts; a kept shared file holds each rank's records where IOR's
offset arithmetic (src/ior.c, WriteOrRead, without -F) puts them, the rank told from the data
pattern (which encodes the file position; core/pattern.hpp), and cut apart by that arithmetic
it verifies again through the per-rank path; a stonewalled write leaves a prefix that reads
back verified; --direct refuses such records, saying why."""
import struct

import h5py
import pytest

from conftest import dir_listing, latest_run, run_ids, run_sweep
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import phases

T = 47008  # IOR -t 47008 -b 47008: 11 blocks of 4 KiB and 1952 bytes
SEGMENTS = 16
FILE = SEGMENTS * T
EVERY = 3000  # words between planted keys (several per region)
SEED = 42
KEY = 0xFEEDFACECAFEBEEF
ALL = "seq-write,seq-read,rand-write,rand-read,filter-count"
LAYOUTS = {
    "per-rank": {"file_layout": "per-rank"},
    "segmented": {"file_layout": "shared", "shared_pattern": "segmented"},
    "strided": {"file_layout": "shared", "shared_pattern": "strided"},
}

# The data pattern, restated from core/pattern.{hpp,cpp} so that the test reads a file without
# iosweep: word w of position p's data is a planted key, its block's stamp (w a multiple of 512)
# or the pattern word (w mod 2^21).
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def is_key(w, file_words, every=EVERY):
    if every - 1 >= file_words:  # one key, mid-file
        mid = file_words // 2
        return w == (mid + 1 if mid % 512 == 0 else mid)
    for p in (w, w - 1):  # key j at j * every + every - 1, one word on when that is a stamp
        if p >= every - 1 and (p - (every - 1)) % every == 0:
            return (p + 1 if p % 512 == 0 else p) == w
    return False


def expected_word(position, w, file_bytes=FILE):
    if is_key(w, file_bytes // 8):
        return KEY
    if w % 512 == 0:
        packed = (position << 40) | (w // 512)
        s = mix64(packed ^ mix64((SEED + 0x2545F4914F6CDD1D) & M64))
    else:
        base = mix64(SEED ^ mix64((position * GOLDEN + 0x5851F42D4C957F2D) & M64))
        s = mix64((base + ((w % (1 << 21)) + 1) * GOLDEN) & M64)
    return (~s & M64) if s == KEY else s


def ior_offset(i, j, rank, ranks, block, transfer=T):
    """IOR's file offset of transfer j of segment i of `rank` (of `ranks`), without -F."""
    return j * transfer + i * ranks * block + rank * block


def ior_block(pattern):
    return FILE if pattern == "segmented" else T  # -b: one segment, or ior-hard's -b = -t


def owners(blob, at, logical, ranks):
    """The positions whose data has the 8 bytes of `blob` at `at` as their word at region offset
    `logical` (a multiple of 8)."""
    (found,) = struct.unpack_from("<Q", blob, at)
    return [p for p in range(ranks) if expected_word(p, logical // 8) == found]


def check_ior_layout(blob, pattern, ranks, records_of):
    """Every rank's first records (records_of[r] of them) sit at IOR's offsets: the first and the
    last word of each is rank r's data at that record's region offset, and no other rank's."""
    block = ior_block(pattern)
    told = 0
    for r in range(ranks):
        for n in range(records_of[r]):
            i, j = divmod(n * T, block)
            at = ior_offset(i, j // T, r, ranks, block)
            for word in (0, T - 8):
                who = owners(blob, at + word, n * T + word, ranks)
                if len(who) == ranks and ranks > 1:
                    continue  # a planted key: every position's, so it names no rank
                assert who == [r], f"rank {r} record {n}: bytes at {at + word} are {who}'s"
                told += 1
    assert told >= sum(records_of) > 0


def records_run(workdir, out, n, layout, **options):
    return run_sweep(
        n,
        dir=workdir,
        file_size=str(FILE),
        seq_record=str(T),
        rand_record=str(T),
        filter_every=EVERY,
        output=out,
        **LAYOUTS[layout],
        **options,
    )


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_records_of_47008_bytes_read_back_every_byte(tmp_path, workdir, layout):
    out = tmp_path / "r.h5"
    p = records_run(workdir, out, 3, layout, ranks="1,2,3", phases=ALL, verify=True, read_shift=1)
    assert p.returncode == 0, p.stdout + p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["seq_record_bytes"] == T and g.attrs["rand_record_bytes"] == T
        assert g.attrs["scan_record_bytes"] == T  # auto: 1 MiB does not divide the file
        assert text(g.attrs["file_layout"]) == LAYOUTS[layout]["file_layout"]
        s, ph = g["summary"][()], phases(g)
        assert list(s["ranks"][s["phase"] == ph["seq_write"]]) == [1, 2, 3]
        assert all(s["bad_blocks"] == 0)
        # Every record of every region, each verified byte for byte as it was read.
        for name in ("seq_write", "seq_read", "rand_write", "rand_read", "filter_count"):
            for row in s[s["phase"] == ph[name]]:
                assert row["bytes"] == row["ranks"] * FILE, (name, row["ranks"])
        for row in s[(s["phase"] == ph["seq_read"]) | (s["phase"] == ph["rand_read"])]:
            assert row["ops"] == row["ranks"] * SEGMENTS
        fc = s[s["phase"] == ph["filter_count"]]
        assert all(fc["matches"] == fc["expected_matches"]) and all(fc["matches"] > 0)
    assert dir_listing(workdir) == []


def region_of(blob, r, ranks, pattern):
    """Rank r's region, cut out of the file by IOR's arithmetic alone."""
    block = ior_block(pattern)
    return b"".join(blob[ior_offset(i, 0, r, ranks, block) :][:block] for i in range(FILE // block))


@pytest.mark.parametrize("ranks", [2, 3])
@pytest.mark.parametrize("pattern", ["segmented", "strided"])
def test_kept_shared_file_is_laid_out_as_ior_lays_it_out(tmp_path, workdir, pattern, ranks):
    out = tmp_path / "r.h5"
    p = records_run(workdir, out, ranks, pattern, ranks=ranks, phases="seq-write", keep=True)
    assert p.returncode == 0, p.stdout + p.stderr
    with h5py.File(out, "r") as f:
        run_id = run_ids(f)[-1]
    shared = workdir / f"iosweep.{run_id}.shared"
    blob = shared.read_bytes()
    assert len(blob) == ranks * FILE  # as IOR's: -b x -s x ranks
    check_ior_layout(blob, pattern, ranks, [SEGMENTS] * ranks)
    # Cut apart by IOR's arithmetic into one file per rank, every byte verifies through the
    # per-rank path (no layout arithmetic of iosweep's); the other pattern's cut does not.
    split = tmp_path / "split"
    split.mkdir()
    for cut, good in (
        (pattern, True),
        ("strided" if pattern == "segmented" else "segmented", False),
    ):
        for r in range(ranks):
            (split / f"iosweep.{run_id}.{r}").write_bytes(region_of(blob, r, ranks, cut))
        v = tmp_path / f"{cut}.h5"
        q = records_run(
            split, v, ranks, "per-rank", ranks=ranks, phases="seq-read", reuse=run_id, verify=True
        )
        bad = q.returncode != 0
        if not bad:
            with h5py.File(v, "r") as f:
                s = latest_run(f)["summary"][()]
                bad = s["bad_blocks"][0] > 0
                assert bad or s["bytes"][0] == ranks * FILE
        assert bad != good, f"{pattern} file cut as {cut}: verified {not bad}"
    shared.unlink()


def test_stonewalled_strided_write_leaves_a_prefix_that_reads_back(tmp_path, workdir):
    """A strided write stopped by the stonewall: each rank's records up to where it stopped are
    at IOR's offsets and read back verified, and nothing beyond them is read."""
    out, size = tmp_path / "r.h5", 8192 * T  # 385 MB a region: more than 50 ms of writing here
    p = run_sweep(
        3,
        dir=workdir,
        file_size=str(size),
        seq_record=str(T),
        file_layout="shared",
        shared_pattern="strided",
        filter_every=EVERY,
        ranks=3,
        phases="seq-write,seq-read",
        stonewall="50ms",
        verify=True,
        keep=True,
        output=out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, rk, ph = g["summary"][()], g["ranks"][()], phases(g)
        run_id = run_ids(f)[-1]
    w = s[s["phase"] == ph["seq_write"]][0]
    rd = s[s["phase"] == ph["seq_read"]][0]
    assert w["stonewalled"] == 1 and 0 < w["bytes"] < 3 * size
    assert rd["bad_blocks"] == 0 and rd["bytes"] <= w["bytes"]
    written = {int(r["position"]): int(r["bytes"]) for r in rk[rk["point"] == w["point"]]}
    assert all(b % T == 0 for b in written.values())  # whole records only
    for r in rk[rk["point"] == rd["point"]]:
        # A reader reads the prefix its file's writer left, all of it unless stopped itself.
        prefix = written[int(r["file"])]
        assert r["bytes"] <= prefix and (r["stonewalled"] or r["bytes"] == prefix)
    records_of = [written[r] // T for r in range(3)]
    shared = workdir / f"iosweep.{run_id}.shared"
    with open(shared, "rb") as fh:  # the written part only: the file is sparse beyond it
        blob = fh.read(max(ior_offset(n, 0, r, 3, T) + T for r, n in enumerate(records_of)))
    check_prefix_layout(blob, records_of, size)
    shared.unlink()


def check_prefix_layout(blob, records_of, size):
    """The prefix each rank wrote is at IOR's strided offsets (-b = -t), identified from the
    data; the keys of a region of `size` bytes are planted where its key plan says."""
    for r, records in enumerate(records_of):
        for n in range(records):
            at = ior_offset(n, 0, r, 3, T)
            (found,) = struct.unpack_from("<Q", blob, at)
            want = [p for p in range(3) if expected_word(p, n * T // 8, size) == found]
            assert r in want and (len(want) == 1 or found == KEY), (r, n, want)


@pytest.mark.parametrize("option", ["--seq-record", "--rand-record"])
def test_direct_refuses_records_off_the_logical_block(tmp_path, workdir, option):
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        option,
        str(T),
        dir=workdir,
        file_size="4MiB",
        direct=True,
        phases="seq-write,rand-read",
        output=out,
        quiet=False,
    )
    assert p.returncode == 2, p.stdout + p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert (
        len(lines) == 1
        and lines[0].startswith(f"iosweep: {option}: ")
        and "(47008 bytes)" in lines[0]
    ), p.stderr
    assert "O_DIRECT needs buffer, offset and length aligned" in lines[0], lines[0]
    assert dir_listing(workdir) == [] and not out.exists()
