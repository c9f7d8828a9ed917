"""Name normalisation: one function turns a listed name and a customer's name into the same shape.

Both sides of every comparison go through `name_tokens`, so whatever is lost here is lost
symmetrically. The steps, and why:

1. Transliteration to ASCII. The lists spell names in Latin letters (OFAC romanises Russian names
   the BGN/PCGN way: "ANDREYEV", "KHODORKOVSKY"); a customer may type "Андреев" or "صدام حسين".
   Cyrillic, Greek, Arabic/Persian letters and the Latin letters NFKD cannot decompose (ß, ø, ł,
   æ, ...) go through our own table; accents are then stripped by NFKD. Arabic script carries no
   short vowels, so "صدام" becomes "sdam": it still meets "SADDAM" through the phonetic key below.
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

from common.transliteration import ROMANISATION

_TRANSLITERATION = str.maketrans(ROMANISATION)


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
    "kg ohg aps asa oyj sro spzoo eood ead doo slu eirl"
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
_ARABIC_ARTICLE = re.compile(r"(?<![\u0621-\u064a])\u0627\u0644(?=[\u0621-\u064a]{2,})")
_ABJAD = re.compile(r"[\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")


def is_abjad(text: str) -> bool:
    """True for Arabic or Hebrew script, which is written without short vowels: the matcher then
    accepts a phonetic-key match even where the spelling differs a lot ("hsyn" / "hussein")."""
    return bool(_ABJAD.search(text or ""))


# BGN/PCGN, as OFAC romanises Russian: "е" is "ye" at the start of a word and after a vowel or a
# hard/soft sign ("Андреев" -> "andreyev", "Сергеевич" -> "sergeyevich").
_CYRILLIC_YE = re.compile(r"(?<![а-яё])[её]|(?<=[аеёиоуыэюяъь])[её]")


def fold(text: str) -> str:
    """Lower-case ASCII with accents and non-Latin scripts transliterated; punctuation kept."""
    text = _CYRILLIC_YE.sub("ye", unicodedata.normalize("NFKC", text).lower()).translate(_TRANSLITERATION)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).encode("ascii", "ignore").decode()


def _raw_tokens(folded: str) -> list[str]:
    text = _APOSTROPHES.sub("", folded)
    text = _ABBREVIATION_DOTS.sub("", text)
    return [token for token in _NON_ALNUM.split(text) if token]


def _drop_legal_phrases(tokens: list[str]) -> list[str]:
    kept: list[str] = []
    index = 0
    while index < len(tokens):
        for phrase in LEGAL_FORM_PHRASES:
            if tuple(tokens[index : index + len(phrase)]) == phrase:
                index += len(phrase)
                break
        else:
            kept.append(tokens[index])
            index += 1
    return kept


def _surname_first(folded: str) -> str:
    """'putin, vladimir vladimirovich' -> 'vladimir vladimirovich putin' (exactly one comma)."""
    if folded.count(",") != 1:
        return folded
    surname, given = (part.strip() for part in folded.split(","))
    return f"{given} {surname}" if surname and given else folded


@lru_cache(maxsize=65536)
def name_tokens(name: str, *, individual: bool = False) -> tuple[str, ...]:
    """The name's meaningful tokens, in reading order (given names first for individuals).

    If dropping noise words would leave nothing ("THE COMPANY"), the tokens are kept as they were,
    so that a name never normalises to the empty string.
    """
    folded = fold(_ARABIC_ARTICLE.sub("\u0627\u0644 ", name or ""))
    if individual:
        folded = _surname_first(folded)
    tokens = _raw_tokens(folded)
    meaningful = [token for token in _drop_legal_phrases(tokens) if token not in NOISE_WORDS]
    return tuple(meaningful or tokens)


def normalize_name(name: str, *, individual: bool = False) -> str:
    """The normalised form stored beside every listed name: tokens joined by single spaces."""
    return " ".join(name_tokens(name, individual=individual))


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
