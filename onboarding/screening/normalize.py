"""Name normalisation: one function turns a listed name and a customer's name into the same shape.

Both sides of every comparison go through `name_tokens`, so whatever is lost here is lost
symmetrically. The steps, and why:

1. Transliteration to ASCII, for every script: the `anyascii` library (docs/decisions.md says why it
   and not ICU or the hand tables used before). The lists spell names in Latin letters; a customer
   may type "Андреев", "صدام حسين", "習近平", "김정은", "नरेंद्र मोदी" or "בנימין". Two thin corrections
   keep the romanisation the lists use: Cyrillic "е" is "ye" at the start of a word and after a vowel
   (BGN/PCGN, as OFAC romanises Russian: "Андреев" -> "andreyev"), and the Arabic alif is the long
   vowel "a" (the library drops it: "صدام" -> "sdam", which meets "SADDAM" through the phonetic key).
   Chinese characters and Korean syllables come out as one syllable each; a run of two to four (a
   personal name) is read as the surname syllable and the given name joined ("习近平" -> "xi jinping",
   as the lists write "XI, Jinping"). Symbols (emoji, dingbats) are spaces, never text. Scripts written
   without short vowels (Arabic, Hebrew, Syriac, Thaana) are abjads (`is_abjad`): the scorer then
   trusts the consonants more.
2. Punctuation. Dots inside abbreviations are deleted ("S.A." -> "sa", "L.L.C." -> "llc");
   apostrophes are deleted ("O'Brien" -> "obrien"); every other non-alphanumeric is a space
   ("AL-QAIDA" -> "al qaida").
3. Surname-first order. OFAC writes individuals "PUTIN, Vladimir Vladimirovich"; for individuals a
   single comma splits surname from given names and they are swapped, so the ordered form reads
   like a customer's "Vladimir Vladimirovich Putin". (Scoring is order-insensitive anyway; the
   ordered form is for display and the ordered-string comparison.)
4. Noise words are dropped: legal forms (LLC, LTD, GMBH, S.A. DE C.V., OOO, ...), honorifics and
   titles (Mr, Dr, Sheikh, Mullah, ...), the Arabic article ("al-", "el-"), name particles ("de",
   "del", "von", ...) and connectors ("of", "the", "and", "y", "&"). They say nothing about who the party is, and keeping them makes
   "Acme Trading LLC" look like every other "... LLC".

`phonetic_key` is a coarse consonant skeleton (vowels and h/w/y dropped, similar consonants merged)
that makes "Mohammed"/"Muhammad", "Hussein"/"Husayn" and "sdam"/"Saddam" agree.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from anyascii import anyascii
from rapidfuzz.distance import OSA


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Legal forms, as token sequences after punctuation handling ("S.A. DE C.V." -> sa de cv).
# Longest first, so a phrase is removed before its parts.
LEGAL_FORM_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    sorted(
        (
            tuple(phrase.split())
            for phrase in (
                "sa de cv", "s de rl de cv", "s de rl", "de cv", "s en cs", "s en c", "en liquidacion",
                "obshchestvo s ogranichennoy otvetstvennostyu", "obshchestvo s ogranichennoi otvetstvennostyu",
                "aktsionernoe obshchestvo", "publichnoe aktsionernoe obshchestvo", "zakrytoe aktsionernoe obshchestvo",
                "otkrytoe aktsionernoe obshchestvo", "joint stock company", "limited liability company",
                "public joint stock company", "closed joint stock company", "open joint stock company",
                # The joint-stock forms also stand without "company", or with it elsewhere in a reordered name, and
                # Ukraine's private joint-stock company (PrJSC).
                "private joint stock company", "public joint stock", "closed joint stock", "open joint stock",
                "private joint stock", "joint stock",
                "private limited", "pvt ltd", "pte ltd", "sdn bhd", "co ltd", "sp z oo",
            )
        ),
        key=len,
        reverse=True,
    )
)
LEGAL_FORMS = _words(
    "llc ltd ltda inc incorporated gmbh mbh sa sas sarl srl spa jsc ojsc cjsc pjsc ooo oao zao pao "
    "company co cia corp corporation limited plc ag bv nv cv ca lp llp pte pvt bhd kft fze fzco fzc fzllc "
    "kg ohg aps asa oyj sro spzoo eood ead doo slu eirl "
    # The words of the Russian legal forms (OOO, AO, ZAO, ...) spelt out, wherever they stand.
    "obshchestvo aktsionernoe otkrytoe zakrytoe publichnoe ogranichennoy ogranichennoi otvetstvennostyu"
)
HONORIFICS = _words(
    "mr mrs ms miss mx dr prof sir dame lord lady sheikh shaikh shaykh sheik haji hajji hajj mullah mulla "
    "maulana mawlawi maulavi mawlavi qari hafiz imam sayyid sayed rev reverend fr father gen general col "
    "colonel maj major capt captain lt lieutenant brig brigadier adm admiral cmdr commander sgt"
)
# The Arabic article, Romance and German name particles and the connectors of company names: they
# join words, they do not name anyone ("BANCO NACIONAL DE CUBA", "Maria del Rosario").
PARTICLES = _words("al el ul the of and y et und de del da dos das du des di von")
NOISE_WORDS = LEGAL_FORMS | HONORIFICS | PARTICLES

# A dot between two single letters joins them ("s.a" -> "sa", "l.l.c" -> "llc"); "J.SMITH" stays two words.
_ABBREVIATION_DOTS = re.compile(r"(?<=\b\w)\.(?=\w\b)")
_APOSTROPHES = re.compile(r"['\u2018\u2019\u02bc\u02bb`\u00b4]")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
# The Arabic article is written joined to its noun ("التكريتي"); split it off so it is dropped as "al".
# "الله" (Allah) only looks like the article and a two-letter word: it is one word ("allh"), and stays one when a letter of
# it is swapped ("الهل") or moved ("لاله"): split, those became two-letter words no typo allowance could reach.
# The letters are Arabic's and Persian's (پ چ ژ ک گ ی: "الصیر" is al-Sir as "الصير" is).
_LETTER = "[\u0621-\u064a\u0671-\u06d3]"
_ARABIC_ARTICLE = re.compile(rf"(?<!{_LETTER})\u0627\u0644(?!(?:\u0644\u0651?\u0647|\u0647\u0644)(?!{_LETTER}))(?={_LETTER}{{2,}})")
# Scripts written without short vowels (abjads): Hebrew, Arabic (and its presentation forms), Syriac, Thaana.
# The Brahmic scripts write their vowels (only the inherent "a" goes missing: "नरेंद्र" -> "nrendr"): not abjads, the
# ordinary phonetic test reaches their names ("nrendr" / "narendra"), and treating them as abjads made namesakes of
# "Amit Mishra" and "Ahmad al-Masri".
_VOWEL_LOSSY = re.compile(r"[\u0590-\u07bf\u0800-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def is_abjad(text: str) -> bool:
    """True for a script written without short vowels: Arabic, Hebrew, Syriac, Thaana.
    The matcher then accepts a phonetic-key match even where the spelling differs a lot ("hsyn" / "hussein")."""
    return bool(_VOWEL_LOSSY.search(text or ""))


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def is_han(text: str) -> bool:
    """True for a name with Chinese characters: each one romanises to exactly one pinyin syllable, so a word of it is
    spelt only one way, and a different syllable is a different name ("娟" juan is no "jian", "强" qiang no "quan")."""
    return bool(_HAN.search(text or ""))


# BGN/PCGN, as OFAC romanises Russian: "е" is "ye" at the start of a word and after a vowel or a
# hard/soft sign ("Андреев" -> "andreyev", "Сергеевич" -> "sergeyevich").
_CYRILLIC_YE = re.compile(r"(?<![а-яё])[её]|(?<=[аеёиоуыэюяъь])[её]")
# ELOT 743, as the lists romanise Greek: the diphthongs αυ, ευ, ηυ are "av", "ev", "iv" before a vowel or a voiced
# consonant and "af", "ef", "if" before a voiceless one or at the end ("Μαυρίδης" -> "mavridis", not the library's
# "mayridis"); ου is "ou" ("Νικολάου" -> "nikolaou", not "nikolaoy") and γγ "ng" ("Ευάγγελος" -> "evangelos").
_GREEK_U_DIPHTHONG = re.compile(r"([αεη])[υύ](?=([θκξπσςτφχψ]|$|(?![α-ωάέήίόύώϊϋΐΰ])))?")
_GREEK_U_VOWEL = {"α": "a", "ε": "e", "η": "i"}


def _greek_diphthong(match: re.Match) -> str:
    return _GREEK_U_VOWEL[match.group(1)] + ("f" if match.group(2) is not None else "v")


# The Arabic alif (and its hamza and madda forms) is a written long vowel, and the ayn is romanised as a vowel
# ("عمر" -> "amr", Omar; "عبد" -> "abd"): the library drops both ("عمر" would be "mr", and dropped as "Mr").
_ARABIC_ALIF = str.maketrans({**dict.fromkeys("\u0627\u0623\u0625\u0622\u0671", "a"), "\u0639": "a", "\u0902": "n"})
# Han characters and Hangul syllables: one romanised syllable per character.
_SYLLABIC_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_LETTERS_MARKS_DIGITS = frozenset("LMN")


def _syllables(match: re.Match) -> str:
    """'习近平' -> ' xi jinping ': a personal name (two to four characters) is its surname syllable and its
    given name; a longer run (an organization's name) one word per syllable."""
    syllables = [anyascii(character).lower() for character in match.group()]
    if 2 <= len(syllables) <= 4:
        return f" {syllables[0]} {''.join(syllables[1:])} "
    return f" {' '.join(syllables)} "


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower-case ASCII with accents stripped and every script transliterated; punctuation kept, symbols
    (emoji, dingbats) turned into spaces."""
    text = unicodedata.normalize("NFKC", _APOSTROPHES.sub("", text)).lower()
    if text.isascii():
        return text
    text = _CYRILLIC_YE.sub("ye", text).translate(_ARABIC_ALIF)
    if "υ" in text or "ύ" in text or "γγ" in text:
        text = _GREEK_U_DIPHTHONG.sub(_greek_diphthong, text).replace("ου", "ou").replace("ού", "ou").replace("γγ", "ng")
    text = "".join(ch if ch.isascii() or unicodedata.category(ch)[0] in _LETTERS_MARKS_DIGITS else " " for ch in text)
    return anyascii(_SYLLABIC_RUN.sub(_syllables, text)).lower()


def unreadable_letters(name: str) -> bool:
    """True when `name` has letters and none of them transliterates (a script the library has no table for):
    such a name cannot be screened, and the caller records that for an analyst instead of a pass."""
    return any(character.isalpha() for character in name or "") and not any(character.isalnum() for character in fold(name or ""))


@lru_cache(maxsize=16384)
def article_family_names(name: str) -> frozenset[str]:
    """The words an Arabic-script name marks as family names with the joined article ("أحمد الحسن" -> {"hsn"}: al-Hasan,
    a family name, where a Latin list's "AHMAD, Hasan" has Hasan as the given name). Empty for any other name."""
    if not is_abjad(name):
        return frozenset()
    marked = (word[2:] for word in name.split() if _ARABIC_ARTICLE.match(word) and word not in _ALLAH)
    return frozenset(token for word in marked for token in _raw_tokens(fold(word)) if token not in NOISE_WORDS)


# "الله" (Allah, in "Abd Allah", "Hamd Allah") begins like the article but is one word: no family name.
_ALLAH = frozenset(("\u0627\u0644\u0644\u0647", "\u0627\u0644\u0644\u0651\u0647"))


def _raw_tokens(folded: str) -> list[str]:
    text = _APOSTROPHES.sub("", folded)
    text = _ABBREVIATION_DOTS.sub("", text)
    return [token for token in _NON_ALNUM.split(text) if token]


def _drop_legal_phrases(tokens: list[str]) -> list[str]:
    tokens = _unwrap_legal_phrase(tokens)
    kept: list[str] = []
    index = 0
    while index < len(tokens):
        for phrase in _PHRASES_BY_FIRST_WORD.get(tokens[index], ()):
            if tuple(tokens[index : index + len(phrase)]) == phrase:
                index += len(phrase)
                break
        else:
            kept.append(tokens[index])
            index += 1
    return kept


def _unwrap_legal_phrase(tokens: list[str]) -> list[str]:
    """`tokens` without a legal phrase split across the name's end and start, as a name written from another word on
    reads ("STOCK COMPANY VTB REGISTRAR JOINT", "COMPANY SOUTHERN PROJECT LIMITED LIABILITY"); else `tokens`."""
    if len(tokens) < 3:
        return tokens
    for phrase in LEGAL_FORM_PHRASES:
        if tokens[-1] not in phrase[:-1]:
            continue
        for split in range(1, len(phrase)):
            head = len(phrase) - split
            if len(tokens) > len(phrase) and tuple(tokens[-split:]) == phrase[:split] and tuple(tokens[:head]) == phrase[split:]:
                return tokens[head:-split]
    return tokens


def _phrases_by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    """LEGAL_FORM_PHRASES by their first word, each word's in their order: only those can start at a token."""
    grouped: dict[str, list[tuple[str, ...]]] = {}
    for phrase in LEGAL_FORM_PHRASES:
        grouped.setdefault(phrase[0], []).append(phrase)
    return {word: tuple(phrases) for word, phrases in grouped.items()}


_PHRASES_BY_FIRST_WORD = _phrases_by_first_word()


def _surname_first(folded: str) -> str:
    """'putin, vladimir vladimirovich' -> 'vladimir vladimirovich putin' (exactly one comma)."""
    if folded.count(",") != 1:
        return folded
    surname, given = (part.strip() for part in folded.split(","))
    return f"{given} {surname}" if surname and given else folded


# Legal forms that are also words of people's names ("Sá", "Co", "Ag"): dropped from an organization's name,
# never from a person's, and from a name of unknown kind only when written as an abbreviation ("S.A.").
AMBIGUOUS_LEGAL_FORMS = _words("sa sas spa co cia ca cv ag kg nv bv lp asa aps ab ead doo")
INDIVIDUAL_PARTY, ORGANIZATION_PARTY = "individual", "organization"
_DOTTED = re.compile(r"\b\w(?:\.\w)+\b|\b\w+(?=\.)")


# Legal words, which a typo must not turn into a name word ("COMPAANY", "LIMITE", "CORPORAITON", "LDT", "GGMBH"):
# the words of the legal forms and phrases of three letters or more.
_LEGAL_WORDS = tuple(sorted({word for word in LEGAL_FORMS if len(word) >= 3}
                            | {word for phrase in LEGAL_FORM_PHRASES for word in phrase if len(word) >= 3}))


_LEGAL_WORD_SET = frozenset(_LEGAL_WORDS) | LEGAL_FORMS
_PHRASE_WORDS = tuple(sorted({word for phrase in LEGAL_FORM_PHRASES for word in phrase if len(word) >= 5}))
# Each legal word with its letters sorted, for legal_word's test of two swapped letters.
_LEGAL_WORD_LETTERS = tuple((word, sorted(word)) for word in _LEGAL_WORDS)


@lru_cache(maxsize=65536)
def legal_word(token: str) -> str:
    """The legal word `token` misspells, or `token` itself: a transposition of a three-letter one ("ldt", "psa"), one
    edit in a word of five to seven letters (the first letter kept: "ggmbh", "limite"), two from eight ("liabilty").
    A four-letter word is left alone: "Sara" is no "SARL", "Inca" no "Inc"."""
    if len(token) < 3 or token in LEGAL_FORMS:
        return token
    for single in _one_doubled_less(token):
        if len(single) >= 3 and single in LEGAL_FORMS:
            return single  # a letter keyed twice: "JSSC", "OAAO", "PLCC", "LLCC"
    if len(token) == 4:
        return token
    allowed = 0 if len(token) == 3 else 1 if len(token) <= 7 else 2
    letters = sorted(token)  # once, not once per legal word
    for word, word_letters in _legal_words_near(len(token)):
        if len(token) == 3:
            if word_letters == letters and OSA.distance(word, token) == 1:
                return word
            continue
        if (word[0] == token[0] or word_letters == letters) and OSA.distance(word, token, score_cutoff=allowed) <= allowed:
            return word
    return token


@lru_cache(maxsize=64)
def _legal_words_near(length: int) -> tuple[tuple[str, list[str]], ...]:
    """The legal words (with their letters sorted) legal_word compares a token of `length` letters with, in _LEGAL_WORDS
    order: three letters for three, else within the typo allowance in length."""
    if length == 3:
        return tuple((word, letters) for word, letters in _LEGAL_WORD_LETTERS if len(word) == 3)
    allowed = 1 if length <= 7 else 2
    return tuple((word, letters) for word, letters in _LEGAL_WORD_LETTERS if abs(len(word) - length) <= allowed)


def _one_doubled_less(token: str) -> set[str]:
    """`token` with one letter of one doubled pair left out ("llcc" -> "lcc", "llc")."""
    return {token[:position] + token[position + 1:] for position in range(len(token) - 1) if token[position] == token[position + 1]}


_DOUBLED = re.compile(r"(.)\1+")
# Titles of four letters or more, with their letters keyed twice written once ("sayyid" -> "sayid", "hajji" -> "haji").
_LONG_HONORIFICS = frozenset(word for word in HONORIFICS if len(word) >= 4)
# Titles and particles of three letters or more, which two swapped neighbours still name ("aHji", "HTE").
# By length, each word with its letters sorted (the test of two swapped neighbours compares words of one length).
_SWAPPABLE: dict[int, tuple[tuple[str, list[str]], ...]] = {
    length: tuple((word, sorted(word)) for word in sorted(HONORIFICS | PARTICLES) if len(word) == length)
    for length in {len(word) for word in HONORIFICS | PARTICLES if len(word) >= 3}}
_SINGLE_HONORIFICS = frozenset(_DOUBLED.sub(r"\1", word) for word in _LONG_HONORIFICS)


@lru_cache(maxsize=65536)
def honorific(token: str) -> bool:
    """A title or particle, a title of four letters or more misspelt by a letter keyed twice or once ("Sayid" for
    "Sayyid", "Hajjji"), or either of three letters or more with two neighbours swapped ("aHji" for "Haji", "HTE").
    A changed letter is not enough: "Saeed" is no "Sayed",
    "Hafez" no "Hafiz"."""
    if token in HONORIFICS:
        return True
    if len(token) < 3:
        return False
    if len(token) >= 4 and _DOUBLED.sub(r"\1", token) in _SINGLE_HONORIFICS:
        return True
    letters = sorted(token)
    return any(word_letters == letters and OSA.distance(word, token, score_cutoff=1) == 1
               for word, word_letters in _SWAPPABLE.get(len(token), ()))


def _is_noise(token: str, party: str | None, dotted: frozenset[str], trailing: bool = False) -> bool:
    if token in PARTICLES or honorific(token):
        return True
    if token not in LEGAL_FORMS or party == INDIVIDUAL_PARTY:
        return False
    return party == ORGANIZATION_PARTY or token not in AMBIGUOUS_LEGAL_FORMS or token in dotted or trailing


@lru_cache(maxsize=65536)
def name_tokens(name: str, *, individual: bool = False, party: str | None = None) -> tuple[str, ...]:
    """The name's meaningful tokens, in reading order (given names first for individuals).

    `individual`: a listed person's name or a customer's written "SURNAME, Given": one comma swaps the
    parts. `party`: "individual" | "organization" | None (not known) decides the legal forms, which are
    whole tokens or phrases of an organization's name: a person's name keeps them ("João Sá" is not
    "João S.A."); a name of unknown kind drops the unambiguous ones ("LLC", "GmbH") and an ambiguous one
    only written as an abbreviation ("Cecoex S.A.", "Ayash Co.") or last after two other words.

    If dropping noise words would leave nothing ("THE COMPANY"), the tokens are kept as they were,
    so that a name never normalises to the empty string.
    """
    party, tokens, dotted = _read(name, individual, party)
    return _meaningful(tokens, party, dotted)


def _read(name: str, individual: bool, party: str | None) -> tuple[str | None, list[str], frozenset[str]]:
    """(party, raw tokens, abbreviations written with dots) of a name, before noise words are dropped."""
    if individual and party is None:
        party = INDIVIDUAL_PARTY
    folded = fold(_ARABIC_ARTICLE.sub("\u0627\u0644 ", name or ""))
    if individual:
        folded = _surname_first(folded)
    dotted = frozenset(match.group().replace(".", "") for match in _DOTTED.finditer(folded)) if "." in folded else frozenset()
    return party, _raw_tokens(folded), dotted


def _phrase_word(token: str, before: str, after: str) -> str:
    """A four-letter word one edit from a legal phrase's word of five letters or more, next to a legal word ("JOIT
    STOCK", "JOINT STOK"): that word. Alone, a four-letter word is never read as a legal one ("Sara" is no "SARL")."""
    if len(token) != 4 or not (before in _LEGAL_WORD_SET or after in _LEGAL_WORD_SET):
        return token
    for word in _PHRASE_WORDS:
        if word[0] == token[0] and OSA.distance(word, token, score_cutoff=1) <= 1:
            return word
    return token


def _legal_words(tokens: list[str]) -> list[str]:
    words = [legal_word(token) for token in tokens]
    return [_phrase_word(word, words[position - 1] if position else "", words[position + 1] if position + 1 < len(words) else "")
            for position, word in enumerate(words)]


def _meaningful(tokens: list[str], party: str | None, dotted: frozenset[str]) -> tuple[str, ...]:
    kept = tokens if party == INDIVIDUAL_PARTY else _drop_legal_phrases(_legal_words(tokens))
    # Of unknown kind, an ambiguous legal form written last after two other words is one ("CHONMYONG SHIPPING CO").
    last = len(kept) - 1 if len(kept) >= 3 else -1
    meaningful = [token for position, token in enumerate(kept) if not _is_noise(token, party, dotted, position == last)]
    return tuple(meaningful or tokens)


@lru_cache(maxsize=16384)
def shifted_readings(name: str, *, individual: bool = False, party: str | None = None) -> tuple[tuple[str, ...], ...]:
    """Other readings of `name` with one letter moved back across a word break where that move makes a noise word
    (a legal form or title) appear or vanish: "HafizA bdul" -> ("abdul",) as "Hafiz Abdul", "SBERBANK FINANSO OO" ->
    ("sberbank", "finans") as "... FINANS OOO". `name_tokens` drops noise words before any word break could be
    repaired, so the matcher screens these readings too. Empty for almost every name."""
    party, tokens, dotted = _read(name, individual, party)
    base = _meaningful(tokens, party, dotted)
    readings: list[tuple[str, ...]] = []
    for position in range(len(tokens) - 1):
        left, right = tokens[position], tokens[position + 1]
        candidates = [(moved_left, moved_right) for moved_left, moved_right in ((left[:-1], left[-1] + right), (left + right[0], right[1:]))
                      # A two-letter title ("ms", "dr") is too easily made; the article "al" is not a title.
                      if len(moved_left) >= 3 and (len(moved_right) >= 3 or moved_right in _ARTICLES)]
        if min(len(left), len(right)) <= 2 and _noise_like(left + right):
            candidates.append((left + right,))  # a legal form or title split by a break ("C ORP", "O-OO")
        for moved in candidates:
            shifted = [*tokens[:position], *moved, *tokens[position + 2:]]
            reading = _meaningful(shifted, party, dotted)
            if reading != base and reading not in readings and (
                    len(reading) != len(base) or any(_noise_like(word) for word in (left, right, *moved))):
                readings.append(reading)
    return tuple(readings)


_ARTICLES = frozenset(("al", "el"))


def _noise_like(word: str) -> bool:
    """A noise word, or a misspelt legal form or title (what `_meaningful` drops from an organization's name)."""
    return word in NOISE_WORDS or honorific(word) or legal_word(word) in LEGAL_FORMS


# Titles, particles and legal forms of three letters or more, by length: what near_noise compares a word with.
_NOISE_BY_LENGTH: dict[int, tuple[str, ...]] = {
    length: tuple(sorted(word for word in NOISE_WORDS | _LEGAL_WORD_SET if len(word) == length))
    for length in {len(word) for word in NOISE_WORDS | _LEGAL_WORD_SET if len(word) >= 3}}


def noise_word(token: str) -> bool:
    """A title, particle or legal form as such, or a word of a legal phrase ("joint", "stock", "liability")."""
    return token in NOISE_WORDS or token in _LEGAL_WORD_SET


@lru_cache(maxsize=65536)
def near_noise(token: str) -> bool:
    """A word that may be a title, particle or legal form, kept or misspelt: a noise word kept (an ambiguous legal form
    in a name of unknown kind: "DOO", "SPA"), a title or legal form misspelt as `honorific` and `legal_word` read them,
    a letter keyed twice ("TTHE"), or one slip from a noise word of three letters or more: a vowel for a vowel ("THI",
    "OAA", "FZO", "IND", "Huji", "Hafaz", "FZCE", "GINERAL", "IBSHCHESTVO"), and from four letters a letter dropped or
    added or two neighbours swapped ("Mllah", "FCZO"). A consonant for another is a name's ("Hadi" is no "Haji", "Sam"
    no "SAS", "Owen" no "open"). The scorer lets such a word, when it meets nothing in the listed name, weigh little
    (index.TokenWeights.unmatched): a misspelt title must not sink a name as a misspelt name word does."""
    if len(token) < 3:
        return False
    if _noise_like(token) or collapse_doubled(token) in NOISE_WORDS:
        return True
    for length in (len(token) - 1, len(token), len(token) + 1):
        if length < 4 and length != len(token):
            continue
        for word in _NOISE_BY_LENGTH.get(length, ()):
            if OSA.distance(word, token, score_cutoff=1) <= 1 and (length != len(token) or _vowel_slip(word, token)):
                return True
    return False


def _vowel_slip(word: str, token: str) -> bool:
    """Two words of one length, one edit apart: a vowel for a vowel, or (from four letters) two neighbours swapped."""
    changed = [(a, b) for a, b in zip(word, token, strict=True) if a != b]
    if len(changed) == 1:
        return changed[0][0] in _VOWEL_START and changed[0][1] in _VOWEL_START
    return len(word) >= 4


def normalize_name(name: str, *, individual: bool = False) -> str:
    """The normalised form stored beside every listed name: tokens joined by single spaces."""
    return " ".join(name_tokens(name, individual=individual, party=INDIVIDUAL_PARTY if individual else ORGANIZATION_PARTY))


_PHONETIC_CLASSES = str.maketrans(
    {
        "b": "p", "p": "p", "f": "f", "v": "f", "c": "k", "k": "k", "q": "k", "g": "k", "j": "j",
        "d": "t", "t": "t", "s": "s", "z": "s", "x": "s", "l": "l", "r": "r", "m": "n", "n": "n",
        "a": "", "e": "", "i": "", "o": "", "u": "", "y": "", "h": "", "w": "",
    }
)
_VOWEL_START = frozenset("aeiou")


@lru_cache(maxsize=131072)
def phonetic_key(token: str) -> str:
    """A consonant skeleton: 'mohammed' and 'muhammad' -> 'nt' with a leading class letter.

    The first letter's class is kept (a vowel start becomes 'a'; h, w and y stay themselves, so
    'ali' and 'wali' differ); then consonant classes with repeats collapsed. Digits are kept.
    """
    if not token:
        return ""
    head = "a" if token[0] in _VOWEL_START else (token[0].translate(_PHONETIC_CLASSES) or token[0])
    skeleton: list[str] = []
    for char in token[1:].translate(_PHONETIC_CLASSES):
        if not skeleton or skeleton[-1] != char:
            skeleton.append(char)
    if skeleton and skeleton[0] == head:
        skeleton.pop(0)
    return head + "".join(skeleton)


# The screening's sound classes: as _PHONETIC_CLASSES, but m and n apart ("mendoza" is not "meadows").
_SOUND_CLASSES = str.maketrans({**{key: value for key, value in zip("bpfvckqgjdtszxlrmn", "ppffkkkkjttssslrmn", strict=True)},
                                **dict.fromkeys("aeiouyhw", "")})


@lru_cache(maxsize=131072)
def collapse_doubled(token: str) -> str:
    """`token` with every run of one letter written once ("yyue" -> "yue", "peyya" -> "peya"): a comparison variant
    for a letter keyed twice, which a short word's typo allowance would not forgive."""
    return _DOUBLED.sub(r"\1", token)


@lru_cache(maxsize=131072)
def sound_keys(token: str) -> tuple[str, str]:
    """Two sound keys for screening: (anchored, skeleton). The anchored key keeps the first letter's class
    (a vowel start is "a"), then the consonant classes with repeats collapsed; the skeleton drops every
    vowel and h/w/y wherever they are, so a word whose first letter was mistyped, dropped or moved
    ("Omar" / "Umar" / "Omra") still meets. m and n stay apart. A key under two letters is "" (too
    coarse to say anything)."""
    if not token:
        return "", ""
    classes = token.translate(_SOUND_CLASSES)
    skeleton: list[str] = []
    for char in classes:
        if not skeleton or skeleton[-1] != char:
            skeleton.append(char)
    bare = "".join(skeleton)
    head = "a" if token[0] in _VOWEL_START else (token[0].translate(_SOUND_CLASSES) or token[0])
    anchored = head + (bare[1:] if bare[:1] == head else bare)
    return (anchored if len(anchored) >= 2 else "", bare if len(bare) >= 2 else "")
