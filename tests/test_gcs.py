"""GURPS characters from GCS files (data versions 2 to 5) and GURPS Game Aid actor exports.

The fixtures in fixtures/sheets/gcs/ are one character, Ilsa Varga, written in each shape the
formats have had (by hand, for these tests): v2 as GCS 4.30-4.37 wrote it, v3 (read like v2),
v4 as GCS 5.0-5.23, v5 as GCS 5.24-5.42 and as GCS 5.43 on (a default's name as a criteria
object), and the Game Aid's export of her Foundry actor. Each holds the same computed values,
so each must import to the same sheet. ilsa-later.gcs is her sheet after some play;
brass-warden-v4.gcs a construct with the Machine meta-trait, Slave Mentality and Indomitable.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.app.sheets import read_sheet, sheet_from_mapping
from tracker.errors import BadInput
from tracker.systems import registry

GCS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets" / "gcs"
ILSA = "Ilsa Varga"
SHAPES = ["ilsa-v2.gcs", "ilsa-v3.gcs", "ilsa-v4.gcs", "ilsa-v5.gcs", "ilsa-v5-43.gcs"]
STATS = {"ST": 11, "DX": 12, "IQ": 13, "HT": 11, "Will": 14, "Per": 12, "HP": 11, "FP": 12,
         "Basic Move": 5}  # fmt: skip
SKILLS = {
    "Broadsword": 14,
    "Brawling": 13,
    "Kicking (Brawling)": 11,  # a technique, named after the skill it defaults to
    "Guns (Pistol)": 13,  # a specialisation; the tech level is not in the name
    "Detect Lies": 10,
    "Climbing": 12,
    "Diplomacy": 12,  # these two inside a skill container
    "Savoir-Faire (High Society)": 14,
}  # Pharmacy has no level GCS computed, so no level to roll.
TRAITS = [
    "Combat Reflexes",
    "Fearlessness 3",
    "Acute Vision 2",
    "Danger Sense",
    "Empathy",
    "Phobia (Heights)",
]  # fmt: skip  (Unfazeable and Indomitable are switched off)


@pytest.mark.parametrize("shape", SHAPES)
def test_each_gcs_data_version_reads_as_the_same_sheet(shape):
    sheet = read_sheet(GCS / shape)
    assert (sheet.system, sheet.name) == ("gurps", ILSA)
    assert sheet.stats == STATS
    assert sheet.skills == SKILLS
    assert sheet.traits == TRAITS
    # The defaults her skills were bought up from, as tracker writes a default.
    assert sheet.defaults == {"Guns (Pistol)": ["Guns (Rifle)-2"], "Climbing": ["DX-5"]}


def test_the_game_aid_export_reads_as_the_same_sheet():
    sheet = read_sheet(GCS / "ilsa-foundry.json")
    assert (sheet.system, sheet.name) == ("gurps", ILSA)
    assert (sheet.stats, sheet.skills, sheet.traits) == (STATS, SKILLS, TRAITS)


def test_a_meta_trait_container_is_a_trait_and_its_children_too():
    sheet = read_sheet(GCS / "brass-warden-v4.gcs")
    assert sheet.traits == ["Machine", "Unliving", "Slave Mentality", "Indomitable"]


# -- at the table -------------------------------------------------------------------------------


@pytest.fixture
def salt(run):
    run.ok("campaign new Salt --system gurps")
    run.ok(["character", "add", "--sheet", str(GCS / "ilsa-v5-43.gcs")])
    run.ok("session start")
    return run


def test_show_gives_what_was_imported_and_a_roll_uses_its_level(salt):
    shown = salt.json(["character", "show", ILSA])
    assert (shown["stats"], shown["skills"], shown["traits"]) == (STATS, SKILLS, TRAITS)
    assert shown["sheet"] == "ilsa-v5-43.gcs"
    kick = salt.json(["roll", ILSA, "Kicking (Brawling)", "--dice", "3,4,4"])
    assert (kick["base"], kick["effective"], kick["outcome"]) == (11, 11, "success")
    # Bought up from Guns (Rifle)-2: the default is on her sheet as one tracker reads.
    assert "Guns (Pistol) defaults to Guns (Rifle)-2" in salt.ok(["character", "show", ILSA]).stdout


def test_the_sheets_traits_change_the_rolls_the_rules_say_they_change(salt):
    # Acute Vision 2 on a Vision roll (GURPS, 'Sense Rolls').
    seen = salt.json(["roll", ILSA, "Vision", "--dice", "3,4,5"])
    assert seen["modifiers"] == [{"value": 2, "label": "Acute Vision"}]
    # Fearlessness 3 and Combat Reflexes on a Fright Check, then the Rule of 14.
    fright = salt.json(["fright", ILSA, "--dice", "1,2,3"])
    labels = {m["label"]: m["value"] for m in fright["modifiers"]}
    assert labels["Combat Reflexes"] == 2
    assert labels["Fearlessness x3"] == 3
    assert fright["effective"] == 13
    # Danger Sense: a failed sense roll against something dangerous is followed by its own.
    sensed = salt.json(
        ["roll", ILSA, "Vision", "--danger", "--dice", "6,6,6", "--danger-dice", "1,2,3"]
    )
    assert sensed["danger_sense"]["success"] is True
    # Empathy reaches an Indomitable subject; a switched-off Unfazeable protects no one.
    salt.ok(["character", "add", "--sheet", str(GCS / "brass-warden-v4.gcs"), "--npc"])
    salt.ok(["character", "update", "Brass Warden", "--drop-trait", "Slave Mentality"])
    empathic = salt.json(["influence", ILSA, "Diplomacy", "Brass Warden", "--seed", "7"])
    assert empathic["skill"] == "Diplomacy"
    scared = salt.json(["influence", "Brass Warden", "Intimidation", ILSA, "--seed", "7"])
    assert scared["on_pc"] is True


def test_machine_and_slave_mentality_from_a_gcs_sheet(salt):
    salt.ok(["character", "add", "--sheet", str(GCS / "brass-warden-v4.gcs"), "--npc"])
    refused = salt(["effort", "Brass Warden", "20"])
    assert refused.exit_code == 1
    assert "Machine" in refused.stderr
    complied = salt.json(["influence", ILSA, "Diplomacy", "Brass Warden"])
    assert complied["influence"]["complied"] is True


def test_a_changed_sheet_is_an_event_that_keeps_hp_and_fp_in_play(salt):
    salt.ok(["hp", ILSA, "-4"])
    said = salt.ok(["character", "update", ILSA, "--sheet", str(GCS / "ilsa-later.gcs")]).stdout
    assert "Broadsword 14 → 15" in said
    assert "+ Luck" in said
    assert "- Empathy" in said
    after = salt.json(["character", "show", ILSA])
    assert after["skills"]["Broadsword"] == 15
    assert "Luck" in after["traits"]
    assert "Empathy" not in after["traits"]
    assert salt.json(["status", ILSA])["hp"] == 7
    event = salt.json("log")["events"][-1]
    assert event["type"] == "CharacterUpdated"
    assert event["payload"]["skills"] == {"Broadsword": 15}
    # The same sheet again changes nothing, and is refused with what to do.
    again = salt(["character", "update", ILSA, "--sheet", str(GCS / "ilsa-later.gcs")])
    assert again.exit_code == 1
    assert "already reads so" in again.stderr
    salt.ok(["character", "update", ILSA, "--sheet", str(GCS / "ilsa-v5.gcs"), "--reset-tracks"])
    assert salt.json(["status", ILSA])["hp"] == 11


# -- files that are refused -----------------------------------------------------------------------


def _variant(tmp_path: Path, name: str, change) -> Path:
    doc = json.loads((GCS / "ilsa-v5-43.gcs").read_text(encoding="utf-8"))
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _refused(run, path: Path, words: str) -> None:
    before = run.event_count()
    result = run(["character", "add", "--sheet", str(path)])
    assert result.exit_code in (1, 2), result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert words in lines[0]
    assert run.event_count() == before


def test_a_newer_data_version_is_refused_naming_the_versions_read(salt, tmp_path):
    newer = _variant(tmp_path, "newer.gcs", lambda d: d.update(version=6))
    _refused(salt, newer, "tracker reads versions 2 to 5")
    older = _variant(tmp_path, "older.gcs", lambda d: d.update(version=1))
    _refused(salt, older, "tracker reads versions 2 to 5")


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("garbage.gcs", "this is not JSON", "not valid JSON"),
        ("library.gcs", json.dumps({"version": 5, "rows": []}), "GCS library"),
        ("template.gcs", json.dumps({"version": 4, "type": "template"}), "not a character"),
        ("binary.gcs", "\udcff", "not text"),
    ],
)  # fmt: skip
def test_a_file_that_is_no_character_is_refused(salt, tmp_path, name, text, words):
    path = tmp_path / name
    if text == "\udcff":
        path.write_bytes(b"\xff\xfe\x00garbage")
    else:
        path.write_text(text, encoding="utf-8")
    _refused(salt, path, words)


def test_a_file_without_computed_values_says_what_it_lacks(salt, tmp_path):
    def strip(doc):
        for row in doc["attributes"]:
            row.pop("calc", None)

    _refused(salt, _variant(tmp_path, "bare.gcs", strip), "no computed values")
    _refused(salt, _variant(tmp_path, "old.gcs", lambda d: d.pop("attributes")), "before GCS 4.30")


def test_a_huge_file_and_a_name_that_clashes_are_refused(salt, tmp_path):
    huge = tmp_path / "huge.gcs"
    with huge.open("wb") as out:
        out.truncate(50 * 1024 * 1024)
    _refused(salt, huge, "50 MB")
    _refused(salt, GCS / "ilsa-v2.gcs", "already in")


# -- malformed files: a sentence, never a traceback -----------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
BASES = [json.loads((GCS / n).read_text(encoding="utf-8")) for n in [*SHAPES, "ilsa-foundry.json"]]


def _paths(doc, at=()):
    yield at
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, (*at, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _paths(value, (*at, i))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(range(len(BASES))), pick=st.integers(min_value=0), value=JSON)
def test_any_damaged_file_is_a_sheet_or_one_sentence(base, pick, value):
    doc = copy.deepcopy(BASES[base])
    paths = list(_paths(doc))
    where = paths[pick % len(paths)]
    if where:
        holder = doc
        for key in where[:-1]:
            holder = holder[key]
        holder[where[-1]] = value
    else:
        doc = value
    gurps = registry.get("gurps")
    said = ""
    try:
        found = gurps.foreign_sheet(doc, "damaged.gcs")
        if found is not None:
            sheet_from_mapping(found, "damaged.gcs")
    except BadInput as exc:
        said = str(exc)
    assert "\n" not in said


def test_a_gcs_sheet_is_refused_in_a_campaign_of_another_system(run):
    run.ok("campaign new Drift --system gloom")
    result = run(["character", "add", "--sheet", str(GCS / "ilsa-v4.gcs")])
    assert result.exit_code == 1
    assert "is a GURPS sheet" in result.stderr
    assert run.event_count() == 1


def test_fearfulness_dark_vision_and_unfazeable_from_a_gcs_sheet(run, tmp_path):
    def more(doc):
        doc["traits"][3]["children"] = [
            {"id": "tfe000000000000f", "name": "Fearfulness", "levels": 2, "calc": {"points": -4}},
            {"id": "tdv000000000000d", "name": "Dark Vision", "calc": {"points": 25}},
            {"id": "tun000000000000e", "name": "Unfazeable", "calc": {"points": 15}},
        ]

    run.ok("campaign new Salt --system gurps")
    run.ok(["character", "add", "--sheet", str(_variant(tmp_path, "ilsa.gcs", more))])
    run.ok("character add Thug --npc --stat Will=10 --skill Intimidation=14")
    run.ok("session start")
    dark = run.json(["roll", ILSA, "Vision", "--mod", "total-darkness", "--dice", "1,2,3"])
    assert dark["trait"] == "Vision"
    # Unfazeable: no Intimidation works on her, and she needs no Fright Check.
    for command in (["influence", "Thug", "Intimidation", ILSA], ["fright", ILSA]):
        refused = run(command)
        assert refused.exit_code == 1
        assert "Unfazeable" in refused.stderr
    run.ok(["character", "update", ILSA, "--drop-trait", "Unfazeable"])
    fright = run.json(["fright", ILSA, "--dice", "1,2,3"])
    assert {m["label"]: m["value"] for m in fright["modifiers"]}["Fearfulness x2"] == -2
