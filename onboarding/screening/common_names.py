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


# Arabic and Muslim given names, in their usual romanisations: also what an Arabic-script listed word is compared with
# by its sound key (scoring._common_names_cap).
ARABIC_GIVEN_NAMES: frozenset[str] = _words(
    "mohammed muhammad mohamed mohammad muhammed ahmed ahmad mahmoud mahmud ali omar umar abdul abdullah abdallah hassan hasan "
    "hussein husain hussain husayn ibrahim ismail yusuf youssef yousef yousif yousuf khalid khaled said saeed salim salem karim "
    "fatima fatma aisha ayesha khadija maryam mariam zainab amina nour layla leila sara sarah hamza bilal tariq osman usman rashid walid "
    "ammar amer amir tarek ziad zaid samir sami nabil jamal adel adil majid hamid rami fadi faisal mustafa mostafa othman anas "
    "imad emad hani hisham yasser yasir nasser naser jamil kamal"
)

COMMON_GIVEN_NAMES: frozenset[str] = ARABIC_GIVEN_NAMES | _words(
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

# Arab family names in their usual romanisations (also compared by sound key, as ARABIC_GIVEN_NAMES).
ARABIC_SURNAMES: frozenset[str] = _words("haddad khoury mansour saleh nasser najjar khalil hamdan")

# Common family names, romanised as the normaliser writes them, from the same general knowledge: the most frequent
# surnames of the largest naming traditions. One rule uses them (scoring.Similarities): a customer's word that is one of
# these, spelt exactly, is that real name, not a typo of another listed word ("Patel" is no misspelt "PATEK", "Harris"
# no "HARIS"): it meets a different listed word only weakly, so a near-namesake made of common names stays under review.
# Given names are left out of the rule (their spellings vary too much: "Mohammed" / "Muhammad").
COMMON_SURNAMES: frozenset[str] = _words(
    # English-speaking countries
    "smith johnson williams brown jones miller davis wilson anderson taylor thomas moore martin jackson thompson white "
    "harris clark lewis walker hall young king wright scott green baker adams nelson hill campbell mitchell roberts carter "
    "phillips evans turner parker collins edwards stewart morris murphy cook rogers morgan cooper peterson reed bailey bell "
    "kelly howard ward cox richardson wood watson brooks bennett gray hughes price sanders myers long ross foster powell "
    "jenkins perry russell sullivan fisher henderson coleman simmons patterson jordan reynolds hamilton graham wallace "
    "griffin west cole hayes gibson ellis stevens murray ford marshall owens harrison fernandez mcdonald woods washington "
    "kennedy wells butler barnes robinson allen hernandez hunt palmer black mason dixon shaw holmes rice robertson lee "
    # Spanish and Portuguese
    "garcia rodriguez martinez lopez gonzalez perez sanchez ramirez torres flores rivera gomez diaz reyes morales cruz ortiz "
    "gutierrez chavez ramos ruiz alvarez mendoza castillo jimenez moreno romero herrera medina aguilar vargas guzman munoz "
    "castro navarro dominguez vazquez blanco suarez molina delgado rubio ortega silva santos oliveira souza pereira costa "
    "rodrigues almeida ferreira carvalho gomes ribeiro alves lima araujo barbosa rocha dias nascimento fernandes "
    # German, Dutch, Scandinavian
    "muller schmidt schneider fischer weber meyer wagner becker schulz hoffmann koch richter klein wolf schroder neumann "
    "schwarz zimmermann braun kruger hofmann hartmann lange werner krause lehmann jong jansen bakker visser smit meijer "
    "mulder bos vos jensen hansen nielsen pedersen andersen larsen johansson karlsson nilsson eriksson olsen berg "
    # French and Italian
    "dubois durand lefebvre moreau laurent simon michel leroy roux david bertrand morel fournier girard bonnet dupont "
    "lambert fontaine rousseau vincent rossi russo ferrari esposito bianchi romano colombo ricci marino greco bruno gallo "
    "conti costa giordano mancini rizzo lombardi moretti barbieri fontana",
) | _words(
    # Central and Eastern European (romanised)
    "novak kowalski nowak wisniewski wojcik kowalczyk kaminski lewandowski zielinski szymanski dvorak svoboda horvat "
    "ivanov smirnov kuznetsov popov vasilyev petrov sokolov mikhaylov novikov fedorov morozov volkov lebedev yegorov "
    "pavlov kozlov stepanov nikolayev orlov andreyev makarov zakharov kovalenko bondarenko shevchenko melnyk "
    # Greek and Turkish
    "papadopoulos papadakis georgiou oikonomou vasileiou nikolaou karagiannis athanasiou dimitriou ioannou antoniou "
    "christodoulou petropoulos mavridis pappas yilmaz kaya demir sahin celik yildiz yildirim ozturk aydin ozdemir arslan "
    "dogan kilic aslan cetin kara koc kurt ozkan simsek "
    # Jewish family names in their usual romanisations (the Arab ones: ARABIC_SURNAMES, below)
    "cohen levi mizrahi peretz friedman katz shapiro "
    # South Asian
    "patel sharma singh kumar gupta shah mehta joshi verma mishra yadav reddy nair iyer rao das bose chatterjee banerjee "
    "mukherjee chowdhury agarwal pandey tiwari khan qureshi siddiqui "
    # East and South-East Asian, African
    "chen wang zhang liu yang huang zhao zhou sun ma zhu guo tanaka suzuki watanabe sato takahashi ito yamamoto nakamura "
    "kobayashi kato yoshida yamada sasaki nguyen tran pham hoang phan vu dang bui do ho ngo duong park choi jung kang cho "
    "yoon jang lim okafor mensah okonkwo adeyemi mwangi otieno kamau diallo traore toure"
) | ARABIC_SURNAMES

# Every common given name and surname.
COMMON_NAMES: frozenset[str] = COMMON_GIVEN_NAMES | COMMON_SURNAMES
