"""Common given names, romanised as the normaliser writes them (lower case, no accents).

Written for this project from general knowledge of naming across the world (no list was copied): the
most frequent given names of the largest naming traditions, in the spellings the sanctions lists and
customers use. The matcher uses them for one rule (scoring.score_tokens): a match that rests on common
given names alone ("Anna", "Mohammed Ali" against "Mohammed Ali Hassan Al-Tikriti") never reaches
review on its own; the listed surname, or a rare word, has to match too. bench/screening_quality.py
takes its negatives from these and from its own surnames.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


COMMON_GIVEN_NAMES: frozenset[str] = _words(
    # Arabic and Muslim names, in their usual romanisations
    "mohammed muhammad mohamed mohammad muhammed ahmed ahmad mahmoud mahmud ali omar umar abdul abdullah abdallah hassan hasan "
    "hussein husain hussain husayn ibrahim ismail yusuf youssef khalid khaled said saeed salim salem karim fatima fatma aisha "
    "ayesha khadija maryam mariam zainab amina nour layla leila sara sarah hamza bilal tariq osman usman rashid walid "
    # English, Romance, Germanic, Slavic
    "john james robert michael william david richard joseph thomas charles mary patricia jennifer linda elizabeth barbara susan "
    "jessica karen emma olivia sophie lucas hugo louis jean pierre marie anne anna hans peter klaus laura paolo giulia marco "
    "luca carlos juan jose luis maria carmen ana lucia pedro miguel antonio manuel francisco alejandro javier rosa isabel "
    "ivan sergei sergey alexander aleksandr alexei aleksei dmitry dmitri andrei andrey nikolai vladimir olga tatiana natalia "
    "elena yelena irina svetlana pavel mikhail yuri viktor igor oleg anastasia ekaterina yekaterina piotr pawel tomasz "
    "agnieszka katarzyna jan josef george georgios nikolaos konstantinos dimitrios maria eleni ioannis "
    # South Asian
    "ram raj rahul amit sunita priya anil sunil vijay ravi suresh ramesh mahesh ganesh lakshmi sita gita pooja anjali deepak "
    "sanjay ajay arjun krishna "
    # East and South-East Asian (romanised given names and common syllables)
    "wei li ming hua jun jie ying hong yan ling hui xin yu min jing lei tao hiroshi yuki kenji takashi akira yoko keiko "
    "haruto yui sakura minjun seoyeon jiho jisoo somchai somsak malee anh minh thanh linh "
    # African
    "kwame kofi amara chinedu emeka ngozi oluwaseun adebayo musa abubakar aminu halima"
)
