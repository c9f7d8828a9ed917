"""Name-screening quality: recall per edit class, false positives, errors per script, old and new matcher in one run.

    .venv/bin/python bench/screening_quality.py [--seed 11 | --seeds 131,137,149] [--per-class 400] [--per-script 1000]
                                                [--old-ref REF] [--json bench/results/screening_quality.json]

Sets Django up on a fresh SQLite database in a temporary DATA_DIR, loads the bundled lists with the real
`load_sanctions` command, and screens against every loaded list, with the matcher of this checkout ("new") and
the matcher of `--old-ref` ("old"; default: where this branch left main), whose onboarding/screening modules are
read with `git show` into a temporary package and build their own index from the same database.

Positives: listed names (primary names and strong aliases of two or more words, written as a customer would:
given names first) with one seeded edit of each class: a transposition, a dropped letter, a doubled letter, a
vowel changed, the words reordered, a letter moved across a space or hyphen, accents added; and, where the list
carries a name in its original script, that name with a letter dropped ("native_edited") and its romanised form
("native_romanised"). A positive is found when a hit on its own entry reaches review (0.85).
Negatives: a given name and a surname, drawn from the common names of each major script below (written for this
benchmark; the Latin ones are onboarding/screening/common_names.py's given names and common surnames of many
countries). A negative raising any hit at review is a false positive, unless the list holds that very name
(the same normalised words as a listed name, a best hit at 0.95 or more, or one of KNOWN_NAMESAKES, read one by one:
a real namesake, counted apart and listed). Each negative is a distinct name: a pair drawn twice counts once.
Errors: any exception, per script (an unreadable name is one for the old matcher, which raised UnscreenableName).
Timing: every query screened by both matchers in turn (old, new; new, old alternately), median and p99 ms each, on
bench/screening.py's mix of names (which both matchers read) and on all the queries above.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import tempfile
import time
import unicodedata
from pathlib import Path

from screening import build_queries, load_lists, old_matcher, percentile, set_up_django  # bench/screening.py

ROOT = Path(__file__).resolve().parent.parent
REVIEW = 0.85
# A negative whose best hit reaches this is the listed name itself, spelt as the list spells it or transliterated
# ("राजेश गुप्ता" for "GUPTA, Rajesh"): a namesake, counted apart from the false positives.
NAMESAKE = 0.95
# Negatives below that score that the lists hold all the same, read one by one: the listed person's name in another
# script, romanised another way ("Rajesh"/"Rajes") or without the listed patronymic. Counted as namesakes, apart from
# the false positives, and listed in the output ("namesake_examples") so that the reading can be checked.
KNOWN_NAMESAKES = {
    "राजेश गुप्ता": "GUPTA, Rajesh",
    "Дмитрий Смирнов": "SMIRNOV, Dmitriy Konstantinovich",
    "Νίκος Νικολάου": "NICOLAOU, Nicos",
    # Session 21: the same kind of reading. Without the listed patronymic, as "Дмитрий Смирнов" above:
    "Дмитрий Лебедев": "LEBEDEV, Dmitri Alekseevich",
    "Павел Попов": "POPOV, Pavel Anatolievich",
    # 장현우 is Jang Hyeon-u, "Jang Hyon U" in the McCune-Reischauer romanisation the lists use for North Korean names.
    "장현우": "JANG, Hyon U",
    # Ahmad al-Shami: the same two words, the article on both sides.
    "أحمد الشامي": "AL-SHAMI, Ahmad",
}

# Common given names and surnames per script, written for this benchmark (no list copied).
def _split(text: str) -> list[str]:
    return text.split()


NATIVE = {
    "han": (_split("王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 高 林 罗"),
            _split("伟 芳 娜 秀英 敏 静 丽 强 磊 军 洋 勇 艳 杰 娟 涛 明 超 秀兰 霞"), ""),
    "japanese": (_split("佐藤 鈴木 高橋 田中 渡辺 伊藤 山本 中村 小林 加藤 吉田 山田 "
                        "佐々木 山口 松本 井上 木村 斎藤 清水 さとう すずき たなか ヤマダ サトウ"),
                 _split("太郎 花子 翔太 陽菜 大輔 美咲 健太 直子 拓也 裕子 ひろし ゆうき はると さくら ユイ ケンジ"), " "),
    "hangul": (_split("김 이 박 최 정 강 조 윤 장 임 한 오 서 신 권 황 안 송 류 홍"),
               _split("민준 서연 지호 지우 서준 하은 도윤 민서 예준 수아 "
                      "현우 지민 동현 수빈 은지 영호 성민 혜진 준서 유진"), ""),
    "devanagari": (_split("शर्मा वर्मा गुप्ता सिंह कुमार पटेल जोशी मिश्रा यादव चौधरी अग्रवाल मेहता रेड्डी नायर भट्ट पांडे त्रिपाठी"),
                   _split("राहुल प्रिया अमित सुनीता राजेश अनीता विजय पूजा संजय दीपक अनिल सुरेश रवि कविता मनोज नेहा रोहित आरती"), " "),
    "thai": (_split("ศรีสุข แก้วมณี บุญมา ทองดี จันทร์เพ็ญ สุขสวัสดิ์ "
        "รัตนพันธ์ วงศ์ใหญ่ ศรีวงศ์ พรหมมา สายทอง ชัยมงคล"), _split("สมชาย สมศักดิ์ มาลี สุดา ประเสริฐ วิชัย สมพร "
        "วันชัย นภา กมล ธนา ปรีชา อรุณ สุนีย์"), " "),
    "hebrew": (_split("כהן לוי מזרחי פרץ ביטון אברהם פרידמן "
        "שפירא דהן אזולאי גבאי קפלן חדד ברק רוזנברג"), _split("דוד משה יוסף שרה רחל מיכאל אברהם יעקב "
        "נועה תמר אורי דניאל איתן יעל מאיה רון"), " "),
    "arabic": (_split("العلي الحسن الخطيب النجار الحداد السيد منصور حداد صالح الشامي العمري الزهراني القحطاني الأنصاري البكري"),
               _split("محمد أحمد علي عمر فاطمة مريم خالد يوسف حسن سارة إبراهيم طارق نور ليلى هدى زياد سلمان رانيا كريم"), " "),
    "cyrillic": (_split("Иванов Смирнов Кузнецов Попов Васильев Петров Соколов Михайлов "
        "Новиков Фёдоров Морозов Волков Лебедев Егоров Павлов Козлов"),
                 _split("Александр Сергей Дмитрий Андрей Алексей Михаил Иван Максим Павел Николай"), " "),
    "greek": (_split("Παπαδόπουλος Παπαδάκης Γεωργίου Οικονόμου Βασιλείου Νικολάου Καραγιάννης "
        "Αθανασίου Δημητρίου Ιωάννου Αντωνίου Χριστοδούλου Πετρόπουλος Μαυρίδης"),
              _split("Γιώργος Δημήτρης Κωνσταντίνος Γιάννης Νίκος Χρήστος Παναγιώτης Ευάγγελος Θεόδωρος Αντώνης"), " "),
}
LATIN_SURNAMES = _split(
    "Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore Martin Jackson Thompson White Harris "
    "Clark Lewis Walker Hall Young King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips "
    "Garcia Lopez Gonzalez Perez Sanchez Ramirez Torres Flores Rivera Gomez Diaz Muller Schmidt Schneider Fischer Weber Meyer "
    "Wagner Becker Rossi Russo Ferrari Bianchi Dubois Durand Lefebvre Moreau Laurent Tanaka Suzuki Watanabe Sato Chen Wang "
    "Zhang Liu Patel Sharma Singh Kumar Novak Kowalski Nowak Jensen Hansen Nielsen Okafor Mensah Silva Santos Oliveira Souza "
    "Pereira Costa Nguyen Tran Pham Kim Lee Park Choi Yilmaz Kaya Demir Sahin Cohen Levi Haddad Khoury Mansour Saleh Nasser"
)
ACCENTS = {"a": "áàâä", "e": "éèêë", "i": "íìî", "o": "óòôö", "u": "úùûü", "n": "ñ", "c": "ç"}
VOWELS = "aeiou"


# --- The matchers ---------------------------------------------------------------------------------

# --- Positives ------------------------------------------------------------------------------------

def _word_at(words: list[str], rng: random.Random, minimum: int) -> int | None:
    positions = [position for position, word in enumerate(words) if len(word) >= minimum and word.isalpha()]
    return rng.choice(positions) if positions else None


def _edit_word(name: str, rng: random.Random, minimum: int, change) -> str | None:
    words = name.split()
    position = _word_at(words, rng, minimum)
    if position is None:
        return None
    edited = change(words[position])
    if edited is None or edited == words[position]:
        return None
    words[position] = edited
    return " ".join(words)


def transposition(name, rng):
    def change(word):
        spots = [i for i in range(len(word) - 1) if word[i].lower() != word[i + 1].lower()]
        if not spots:
            return None
        i = rng.choice(spots)
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return _edit_word(name, rng, 3, change)


def dropped_letter(name, rng):
    return _edit_word(name, rng, 5, lambda word: (lambda i: word[:i] + word[i + 1:])(rng.randrange(1, len(word))))


def doubled_letter(name, rng):
    return _edit_word(name, rng, 3, lambda word: (lambda i: word[:i] + word[i] + word[i:])(rng.randrange(len(word))))


def vowel_change(name, rng):
    def change(word):
        spots = [i for i, ch in enumerate(word) if ch.lower() in VOWELS]
        if not spots:
            return None
        i = rng.choice(spots)
        other = rng.choice([vowel for vowel in VOWELS if vowel != word[i].lower()])
        return word[:i] + (other.upper() if word[i].isupper() else other) + word[i + 1:]
    return _edit_word(name, rng, 3, change)


def word_order(name, rng):
    words = name.split()
    if len(words) < 2:
        return None
    shift = rng.randrange(1, len(words))
    return " ".join(words[shift:] + words[:shift])


def hyphen_shift(name, rng):
    words = name.split()
    spots = [i for i in range(len(words) - 1) if len(words[i]) >= 3 and len(words[i + 1]) >= 3]
    if not spots:
        return None
    i = rng.choice(spots)
    first, second = words[i], words[i + 1]
    first, second = (first[:-1], first[-1] + second) if rng.random() < 0.5 else (first + second[0], second[1:])
    return " ".join(words[:i] + [f"{first}{rng.choice([' ', '-'])}{second}"] + words[i + 2:])


def accents(name, rng):
    spots = [i for i, ch in enumerate(name) if ch.lower() in ACCENTS]
    if not spots:
        return None
    letters = list(name)
    for i in rng.sample(spots, min(2, len(spots))):
        accented = rng.choice(ACCENTS[letters[i].lower()])
        letters[i] = accented.upper() if letters[i].isupper() else accented
    return "".join(letters)


LATIN_EDITS = {
    "transposition": transposition, "dropped_letter": dropped_letter, "doubled_letter": doubled_letter, "vowel_change": vowel_change,
    "word_order": word_order, "hyphen_shift": hyphen_shift, "accents": accents,
}


def customer_form(name: str, individual: bool) -> str:
    """'ZAMBADA GARCIA, Ismael' -> 'Ismael ZAMBADA GARCIA' (given names first, as a customer writes)."""
    if individual and name.count(",") == 1:
        surname, given = (part.strip() for part in name.split(","))
        return f"{given} {surname}"
    return name


def positives(index, rng: random.Random, per_class: int) -> list[tuple[str, str, tuple[str, str]]]:
    """(query, edit class, (source, entry uid)) for each class."""
    latin, native = [], []
    for record in index.names:
        entry = index.entries[record.entry]
        form = customer_form(record.name, entry.kind == "individual")
        if record.kind in ("primary", "alias") and form.isascii() and len(record.tokens) >= 2:
            latin.append((form, (entry.source, entry.uid)))
        elif record.kind == "original_script" and not form.isascii():
            native.append((form, (entry.source, entry.uid)))
    queries = []
    for edit_class, edit in LATIN_EDITS.items():
        made = 0
        while made < per_class:
            name, expected = rng.choice(latin)
            query = edit(name, rng)
            if query:
                queries.append((query, edit_class, expected))
                made += 1
    from anyascii import anyascii

    for _ in range(min(per_class, 4 * len(native))):
        name, expected = rng.choice(native)
        query = dropped_letter(name, rng) or transposition(name, rng)
        if query:
            queries.append((query, "native_edited", expected))
        queries.append((anyascii(name), "native_romanised", expected))
    return queries


# --- Negatives ------------------------------------------------------------------------------------

def _distinct(rng: random.Random, names: list[str], count: int) -> list[str]:
    """Up to `count` of `names`, each once: a name drawn twice would count its false positive (or its miss) twice."""
    unique = sorted(set(names))
    return rng.sample(unique, min(count, len(unique)))


def negatives(rng: random.Random, per_script: int) -> list[tuple[str, str]]:
    """Distinct given name + surname pairs, up to `per_script` per script (fewer where the script's lists above hold
    fewer pairs)."""
    from onboarding.screening.common_names import COMMON_GIVEN_NAMES

    latin = [f"{given.title()} {surname}" for given in sorted(COMMON_GIVEN_NAMES) for surname in LATIN_SURNAMES]
    names = [(name, "latin") for name in _distinct(rng, latin, per_script)]
    for script, (surnames, given, joiner) in NATIVE.items():
        surname_first = script in ("han", "japanese", "hangul")
        pairs = [f"{surname}{joiner}{first}" if surname_first else f"{first}{joiner}{surname}" for surname in surnames for first in given]
        names += [(name, script) for name in _distinct(rng, pairs, per_script)]
    return names


# --- Running --------------------------------------------------------------------------------------

def run(queries, matchers, indexes) -> dict:
    """Screen every query with each matcher (alternating which goes first); per matcher: results and timings."""
    results = {label: [] for label in matchers}
    timings = {label: [] for label in matchers}
    labels = list(matchers)
    for number, query in enumerate(queries):
        for label in labels if number % 2 == 0 else reversed(labels):
            started = time.perf_counter()
            try:
                hits = matchers[label](query, index=indexes[label], min_score=0.5)
                outcome = [(hit.source, hit.entry_uid, hit.score, hit.matched_name) for hit in hits]
            except Exception as error:  # noqa: BLE001 - every failure is counted, per script
                outcome = error
            timings[label].append((time.perf_counter() - started) * 1000)
            results[label].append(outcome)
    return {"results": results, "timings": timings}


def _script(name: str) -> str:
    for ch in name:
        if ch.isalpha() and not ch.isascii():
            return unicodedata.name(ch, "?").split()[0].lower()
    return "latin"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--seeds", help="several seeds, comma-separated, instead of --seed: one line per seed and the totals "
                                        "(the speed run uses the first)")
    parser.add_argument("--per-class", type=int, default=400)
    parser.add_argument("--per-script", type=int, default=1000)
    parser.add_argument("--old-ref", default="")
    parser.add_argument("--speed-names", type=int, default=2000)
    parser.add_argument("--json")
    parser.add_argument("--show-misses", action="store_true",
                        help="list every missed positive and every false positive (else the first 8 per class and 40)")
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")] if args.seeds else [args.seed]
    old_ref = args.old_ref or subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True,
                                             check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-screening-quality-") as data_dir:
        set_up_django(data_dir)
        from onboarding.screening import index as new_index
        from onboarding.screening import matcher as new_matcher
        from onboarding.screening.normalize import name_tokens

        load_lists()
        old, old_index_module = old_matcher(old_ref, tempfile.mkdtemp(prefix="old-screening-", dir=data_dir))
        indexes = {"old": old_index_module.build_index(), "new": new_index.build_index()}
        matchers = {"old": old.screen_name, "new": new_matcher.screen_name}
        listed_names = {frozenset(record.tokens) for record in indexes["new"].names}
        runs = []
        for number, seed in enumerate(seeds):
            rng = random.Random(seed)
            found = positives(indexes["new"], rng, args.per_class)
            ordinary = negatives(rng, args.per_script)
            if number == 0:
                run([query for query, _c, _e in found[:50]], matchers, indexes)  # warm both (caches, first index use)
            positive_run = run([query for query, _c, _e in found], matchers, indexes)
            negative_run = run([query for query, _s in ordinary], matchers, indexes)
            runs.append((seed, found, ordinary, positive_run, negative_run))
        # Speed on bench/screening.py's mix (listed variants and ordinary Latin names, which both matchers read):
        # the queries above include names the old matcher refused at once, which would flatter its timings.
        speed_run = run([query for query, _s, _e in build_queries(indexes["new"], args.speed_names, random.Random(seeds[0]))],
                        matchers, indexes)

    per_seed = [_figures(seed, found, ordinary, positive_run, negative_run, matchers, listed_names, name_tokens, args.show_misses)
                for seed, found, ordinary, positive_run, negative_run in runs]
    figures = per_seed[0] if len(per_seed) == 1 else {"seeds": seeds, "per_seed": per_seed, "totals": _totals(per_seed, matchers)}
    figures["old_ref"] = old_ref
    for label in matchers:
        speed = speed_run["timings"][label]
        times = [time for _s, _f, _o, positive_run, negative_run in runs
                 for time in positive_run["timings"][label] + negative_run["timings"][label]]
        target = figures["matchers"][label] if len(per_seed) == 1 else figures["totals"][label]
        target.update({"all_queries_median_ms": round(statistics.median(times), 3), "all_queries_p99_ms": round(percentile(times, 0.99), 3),
                       "median_ms": round(statistics.median(speed), 3), "p99_ms": round(percentile(speed, 0.99), 3)})
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    for data in per_seed if len(per_seed) > 1 else []:
        for label, numbers in data["matchers"].items():
            print(f"seed {data['seed']} {label}: recall {numbers['recall_overall']}, false positives {numbers['false_positives']}, "
                  f"errors {sum(numbers['errors_per_script'].values())}")
    summary = figures["matchers"] if len(per_seed) == 1 else figures["totals"]
    for label, data in summary.items():
        print(f"{label}{' (all seeds)' if len(per_seed) > 1 else ''}: recall {data['recall_overall']}"
              f"{', lowest ' + data['lowest_recall'] if 'lowest_recall' in data else ''}, false positives {data['false_positives']}, "
              f"namesakes apart {data['exact_namesakes_on_the_lists']}, errors {sum(data['errors_per_script'].values())}, "
              f"median {data['median_ms']} ms, p99 {data['p99_ms']} ms")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2, ensure_ascii=False))


def _figures(seed, found, ordinary, positive_run, negative_run, matchers, listed_names, name_tokens, show_misses) -> dict:
    """Recall per class, false positives, namesakes and errors of one seed's queries, per matcher."""
    figures = {"seed": seed, "positives": len(found), "negatives": len(ordinary), "matchers": {}}
    for label in matchers:
        per_class: dict[str, list[int]] = {}
        errors: dict[str, int] = {}
        misses: dict[str, list] = {}
        for (query, edit_class, expected), outcome in zip(found, positive_run["results"][label], strict=True):
            tally = per_class.setdefault(edit_class, [0, 0])
            tally[1] += 1
            if isinstance(outcome, Exception):
                errors[_script(query)] = errors.get(_script(query), 0) + 1
            elif any((source, uid) == expected and score >= REVIEW for source, uid, score, _m in outcome):
                tally[0] += 1
            else:
                own = [(score, matched) for source, uid, score, matched in outcome if (source, uid) == expected]
                misses.setdefault(edit_class, []).append({"query": query, "expected": "/".join(expected), "own_best": own[:1]})
        false_positives, namesakes, examples, namesake_examples, negative_errors = 0, 0, [], [], {}
        for (query, script), outcome in zip(ordinary, negative_run["results"][label], strict=True):
            if isinstance(outcome, Exception):
                negative_errors[script] = negative_errors.get(script, 0) + 1
                continue
            raised = [hit for hit in outcome if hit[2] >= REVIEW]
            if raised:
                if (frozenset(name_tokens(query)) in listed_names or raised[0][2] >= NAMESAKE
                        or KNOWN_NAMESAKES.get(query) == raised[0][3]):
                    namesakes += 1
                    namesake_examples.append({"query": query, "matched": raised[0][3], "score": raised[0][2]})
                else:
                    false_positives += 1
                    examples.append({"query": query, "matched": raised[0][3], "score": raised[0][2]})
        not_listed = len(ordinary) - namesakes
        edited = sum(tally[0] for tally in per_class.values()), sum(tally[1] for tally in per_class.values())
        figures["matchers"][label] = {
            "recall_per_class": {name: f"{hits}/{total} ({100 * hits / total:.2f} %)" for name, (hits, total) in sorted(per_class.items())},
            "recall_overall": f"{edited[0]}/{edited[1]} ({100 * edited[0] / edited[1]:.2f} %)",
            "recall_counts": list(edited),
            # Out of the negatives that are not on the lists.
            "false_positives": f"{false_positives}/{not_listed} ({100 * false_positives / not_listed:.3f} %)",
            "false_positive_counts": [false_positives, not_listed],
            "exact_namesakes_on_the_lists": namesakes,
            "namesake_examples": namesake_examples[:40],
            "errors_per_script": {script: negative_errors.get(script, 0) for script in ["latin", *NATIVE]},
            "positive_errors_per_script": errors,
            "false_positive_examples": examples if show_misses else examples[:40],
            "missed_examples": {name: found_misses if show_misses else found_misses[:8] for name, found_misses in sorted(misses.items())},
        }
    return figures


def _totals(per_seed: list[dict], matchers) -> dict:
    """Every seed's queries together, per matcher, and the lowest recall of any seed."""
    totals = {}
    for label in matchers:
        found = sum(data["matchers"][label]["recall_counts"][0] for data in per_seed)
        edited = sum(data["matchers"][label]["recall_counts"][1] for data in per_seed)
        false_positives = sum(data["matchers"][label]["false_positive_counts"][0] for data in per_seed)
        not_listed = sum(data["matchers"][label]["false_positive_counts"][1] for data in per_seed)
        lowest = min(per_seed, key=lambda data: data["matchers"][label]["recall_counts"][0] / data["matchers"][label]["recall_counts"][1])
        errors: dict[str, int] = {}
        for data in per_seed:
            for script, count in data["matchers"][label]["errors_per_script"].items():
                errors[script] = errors.get(script, 0) + count
        totals[label] = {
            "recall_overall": f"{found}/{edited} ({100 * found / edited:.2f} %)",
            "lowest_recall": f"{lowest['matchers'][label]['recall_overall']} (seed {lowest['seed']})",
            "false_positives": f"{false_positives}/{not_listed} ({100 * false_positives / not_listed:.3f} %)",
            "exact_namesakes_on_the_lists": sum(data["matchers"][label]["exact_namesakes_on_the_lists"] for data in per_seed),
            "errors_per_script": errors,
        }
    return totals


if __name__ == "__main__":
    main()
