#!/usr/bin/env python3
# make-demo-data.py: writes the demo benchmark in data/demo/
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The demo benchmark is a small, fictional stand-in for the philly_cafes
# benchmark: 24 invented cafes in the invented town of Kestrel Harbor, reviews
# written for this project, and 30 requests whose gold answers follow the
# evaluation rules of docs/dataset-format.md (the same rules as the original
# framework's validator, quirks included).
#
# Everything is generated deterministically from the tables below, so the
# committed files in data/demo/ must equal this script's output:
#
#     tools/make-demo-data.py            # rewrites data/demo/
#     tools/make-demo-data.py --check    # exits 1 if data/demo/ is stale
#
# While writing the files the script evaluates every request against every
# cafe with a compact re-implementation of the rules (only the parts the demo
# uses) and refuses to write anything unless each request singles out exactly
# its gold cafe. The authoritative check is `anot-run validate --data data/demo`.
#
# Pure standard library; no network, no randomness beyond seeded
# random.Random instances.

import argparse
import ast
import base64
import hashlib
import json
import os
import random
import re
import sys

TOWN = 'Kestrel Harbor'
STATE = 'KH'
SEED = 'anot-demo-1'

# ---------------------------------------------------------------------------
# Yelp-style attribute encodings

AMBIENCE_KEYS = ('touristy', 'hipster', 'romantic', 'divey', 'intimate',
                 'trendy', 'upscale', 'classy', 'casual')
MEAL_KEYS = ('dessert', 'latenight', 'lunch', 'dinner', 'brunch', 'breakfast')
PARKING_KEYS = ('garage', 'street', 'validated', 'lot', 'valet')
MUSIC_KEYS = ('dj', 'background_music', 'no_music', 'jukebox', 'live',
              'video', 'karaoke')
DAYS = ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday',
        'Sunday')


def pydict(keys, true=(), none=(), u=False):
    """A Python dict literal the way Yelp serialises nested attributes."""
    parts = []
    for k in keys:
        v = 'None' if k in none else ('True' if k in true else 'False')
        parts.append(("u'%s'" if u else "'%s'") % k + ': ' + v)
    return '{' + ', '.join(parts) + '}'


def amb(*true, none=(), u=False):
    return pydict(AMBIENCE_KEYS, true, none, u)


def meal(*true, none=()):
    return pydict(MEAL_KEYS, true, none)


def parking(*true):
    return pydict(PARKING_KEYS, true)


def music(*true):
    return pydict(MUSIC_KEYS, true)


def week(default, **days):
    """Hours for every day, with per-day overrides; None drops a day."""
    out = {}
    for d in DAYS:
        v = days.get(d, default)
        if v is not None:
            out[d] = v
    return out


# ---------------------------------------------------------------------------
# Review text: generic sentences, shared by every cafe. They say nothing about
# attributes (wifi, noise, alcohol, ...) so they never contradict a cafe.

OPEN = {
    'pos': [
        "Stopped in on a grey morning and left in a much better mood.",
        "This has become my go-to whenever I'm on this side of town.",
        "I keep coming back, which says most of what you need to know.",
        "A friend sent me here and I owe her one.",
        "What a pleasant surprise this place was.",
        "Third visit this month, so clearly I'm hooked.",
        "I don't write many reviews, but this place deserves one.",
        "Exactly what I hoped for after a long week.",
    ],
    'mix': [
        "Mixed feelings about this one.",
        "It's fine. Not life-changing, not bad either.",
        "I wanted to love this place more than I did.",
        "A decent spot with a few rough edges.",
        "Three stars feels about right.",
        "Some things here are great and some really aren't.",
    ],
    'neg': [
        "I really don't understand the glowing reviews.",
        "Disappointing visit, unfortunately.",
        "I gave it two chances before writing this.",
        "Not going back, sadly.",
        "This used to be better.",
        "I so wanted this to be good.",
    ],
}
FILL = {
    'pos': [
        "The barista remembered my order on my second visit.",
        "My flat white was smooth and properly hot.",
        "Prices are fair for what you get.",
        "Everything in the pastry case looked freshly made.",
        "Staff were friendly even with a line out the door.",
        "The drip coffee is better than it has any right to be.",
        "Everything felt clean and well looked after.",
        "The almond croissant was flaky and not too sweet.",
        "They clearly care about the small details here.",
        "Even the decaf tasted like someone had thought about it.",
    ],
    'mix': [
        "The coffee was good but the wait was long.",
        "Service was a bit scattered during the rush.",
        "My scone was on the dry side, though the coffee made up for it.",
        "Seats fill up quickly around noon.",
        "Prices have crept up since last year.",
        "The cappuccino was fine, if a little milky.",
        "The staff were pleasant but clearly overstretched.",
    ],
    'neg': [
        "My latte arrived lukewarm and mostly foam.",
        "We waited twenty minutes for two drip coffees.",
        "The tables were sticky and nobody came to wipe them.",
        "The muffin tasted like it was baked the day before.",
        "Staff seemed annoyed that we were there at all.",
        "For the price, I expected a lot more.",
        "Nobody apologised when they got the order wrong.",
    ],
}
CLOSE = {
    'pos': [
        "I'll be back soon.",
        "Highly recommended.",
        "Worth the detour.",
        "Can't wait to come back.",
        "One of the best in Kestrel Harbor.",
        "Go, you won't regret it.",
    ],
    'mix': [
        "I might give it another try.",
        "Fine if you're nearby.",
        "Worth a visit, with modest expectations.",
        "Not bad, not great.",
    ],
    'neg': [
        "There are better options a few streets away.",
        "I won't be rushing back.",
        "Save your money.",
        "Hopefully they sort it out.",
    ],
}

# ---------------------------------------------------------------------------
# The social layer: reviewer names and a friend graph. Symmetric edges plus
# one deliberate one-way edge (Rhea lists Ada, Ada does not list Rhea), which
# makes the two social membership tests of the rules disagree.

FRIEND_EDGES = [
    ('Ada', 'Basil'), ('Ada', 'Cora'), ('Basil', 'Dario'), ('Cora', 'Elin'),
    ('Dario', 'Felix'), ('Elin', 'Greta'), ('Felix', 'Greta'),
    ('Greta', 'Hugo'), ('Hugo', 'Iris'), ('Iris', 'Jonah'), ('Jonah', 'Kira'),
    ('Kira', 'Linus'), ('Linus', 'Hugo'), ('Linus', 'Mae'), ('Mae', 'Nico'),
    ('Nico', 'Opal'), ('Opal', 'Pavel'), ('Pavel', 'Quincy'),
    ('Quincy', 'Mae'), ('Quincy', 'Zelda'), ('Zelda', 'Yusuf'),
    ('Yusuf', 'Xena'), ('Xena', 'Wes'), ('Wes', 'Vera'), ('Vera', 'Umar'),
    ('Umar', 'Thea'), ('Thea', 'Silas'), ('Silas', 'Rhea'),
]
ONE_WAY_EDGES = [('Rhea', 'Ada')]

# Names that decide social_rating requests appear only where pinned, so the
# randomly named reviews cannot create a second match.
RESERVED_NAMES = {'Ada', 'Basil', 'Cora', 'Rhea', 'Zelda', 'Yusuf', 'Quincy',
                  'Xena', 'Pavel', 'Mae'}
# Reviewers outside the friend graph have no friends at all.
OTHER_NAMES = ['Amara', 'Bertie', 'Calla', 'Desmond', 'Esme', 'Fintan',
               'Gideon', 'Hollis', 'Ines', 'Jasper', 'Kofi', 'Lorna', 'Marek',
               'Nell', 'Orrin', 'Priya', 'Rosalind', 'Soren', 'Tamsin', 'Ulla']


def friend_graph(edges=None, one_way=None):
    """The friend graph of @edges (both ways) and @one_way (one way); the
    demo's by default."""
    fg = {}
    for a, b in FRIEND_EDGES if edges is None else edges:
        fg.setdefault(a, []).append(b)
        fg.setdefault(b, []).append(a)
    for a, b in ONE_WAY_EDGES if one_way is None else one_way:
        fg.setdefault(a, []).append(b)
    return fg


# ---------------------------------------------------------------------------
# Cafes. `reviews` lists generated reviews as "<stars> <year> [@Name] [h|g]"
# (h: a harsh reviewer, user.average_stars < 3.5; g: a generous one, >= 4.5)
# and hand-written ones as dicts from special().


def special(stars, year, text, name=None, judge=None, user=None):
    return {'stars': stars, 'year': year, 'text': text, 'name': name,
            'judge': judge or {}, 'user': user}


CAFES = [
    dict(
        key='lantern', name='Lantern & Ladle', address='14 Quayside Row',
        postal='09401', lat=44.61213, lon=-62.04832, is_open=1,
        categories='Coffee & Tea, Breakfast & Brunch, Soup, Restaurants',
        hours=week('7:0-15:0', Sunday='8:0-14:0'),
        attributes={
            'DriveThru': 'True', 'GoodForKids': 'True', 'HasTV': 'False',
            'NoiseLevel': "u'average'", 'WiFi': "u'free'",
            'Alcohol': "u'none'", 'RestaurantsPriceRange2': '1',
            'OutdoorSeating': 'False', 'BikeParking': 'True',
            'RestaurantsTakeOut': 'True', 'RestaurantsDelivery': 'False',
            'RestaurantsReservations': 'False',
            'BusinessAcceptsCreditCards': 'True', 'Ambience': amb('casual'),
            'GoodForMeal': meal('lunch', 'breakfast'),
            'BusinessParking': parking('lot'), 'RestaurantsAttire': "u'casual'",
            'Caters': 'True', 'DogsAllowed': 'False',
        },
        notes={
            'pos': [
                "The drive-thru window is a lifesaver when the baby has finally fallen asleep in the car seat.",
                "They keep a basket of crayons and board books by the window, and the staff never flinch at a toddler meltdown.",
                "Their leek and potato soup comes in a proper lidded cup you can take through the drive-thru.",
                "No televisions anywhere, just big windows onto the quay, which I appreciate more than I can say.",
            ],
            'mix': [
                "The drive-thru line backs up onto Quayside Row around eight, so plan for a wait.",
                "It gets noisy with families on weekend mornings, which is the point, but bring patience.",
            ],
            'neg': [
                "My soup was lukewarm and the bread roll was missing from the bag when I got home.",
                "The parking lot is tiny and someone always blocks the exit.",
            ],
        },
        reviews=['5 2016', '4 2017', '5 2018', '3 2019', '4 2020', '1 2021',
                 '5 2022', '4 2023'],
    ),
    dict(
        key='tidewater', name='Tidewater Roastery', address="2 Cooper's Wharf",
        postal='09401', lat=44.61302, lon=-62.04511, is_open=1,
        categories='Coffee Roasteries, Coffee & Tea, Food',
        hours=week('7:0-18:0', Saturday='8:0-17:0', Sunday='8:0-17:0'),
        attributes={
            'NoiseLevel': "u'quiet'", 'WiFi': "u'free'",
            'RestaurantsPriceRange2': '2', 'BikeParking': 'True',
            'Alcohol': "'none'", 'OutdoorSeating': 'False',
            'GoodForKids': 'False', 'HasTV': 'False',
            'Ambience': amb('trendy', 'casual'), 'RestaurantsTakeOut': 'True',
            'BusinessAcceptsCreditCards': 'True',
            'RestaurantsReservations': 'False',
            'BusinessParking': parking('street'), 'Caters': 'False',
            'DogsAllowed': 'False', 'WheelchairAccessible': 'True',
        },
        notes={
            'pos': [
                "It is properly quiet in here; the loudest thing is the hiss of the roaster in the back on Tuesday mornings.",
                "Fast, free wifi and outlets under most of the long bar, so I get real work done.",
                "The single-origin pour-overs rotate every week and the staff can tell you which farm each bean came from.",
                "There's a good bike rack right outside the door, which matters on Cooper's Wharf.",
            ],
            'mix': [
                "Since the ownership changed the beans have been hit and miss, though the room is still calm.",
                "It's a grown-up, laptop kind of place; not really somewhere to bring children.",
            ],
            'neg': [
                "The new management cut the hours and the pour-over I had tasted flat and stale.",
                "Twelve dollars for a pour-over and a tiny biscotti feels steep.",
            ],
        },
        reviews=[
            '5 2015', '4 2016', '5 2017 g', '3 2018 h',
            special(4, 2019,
                    "A calm, serious roastery where people come to work. "
                    "They recently added a matcha latte to the menu, and it's... "
                    "fine? Perfectly drinkable, neither here nor there, and "
                    "clearly not where their heart is. Stick with the "
                    "pour-over, which is excellent: this week's Ethiopian "
                    "tasted of apricot and black tea. Free wifi is fast and "
                    "the room is quiet enough to take a call in the corner.",
                    judge={'matcha latte': ('neutral', 'matcha latte described as drinkable but unremarkable')}),
            '3 2021 @Ada', '5 2021 @Rhea', '2 2022 h', '3 2023',
        ],
    ),
    dict(
        key='marigold', name='Marigold Tea Parlour', address='31 Linden Lane',
        postal='09402', lat=44.60871, lon=-62.05120, is_open=1,
        categories='Tea Rooms, Coffee & Tea, Desserts, Food',
        hours=week('10:0-18:0', Monday=None),
        attributes={
            'NoiseLevel': "'quiet'", 'WiFi': "u'no'", 'Alcohol': "u'none'",
            'RestaurantsReservations': 'True', 'GoodForKids': 'True',
            'Ambience': amb('romantic', 'intimate', 'classy'),
            'RestaurantsPriceRange2': '2', 'OutdoorSeating': 'False',
            'HasTV': 'False', 'RestaurantsAttire': "'casual'",
            'GoodForMeal': meal('dessert'), 'RestaurantsTakeOut': 'True',
            'BikeParking': 'False', 'DogsAllowed': 'False',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Loose-leaf teas arrive in mismatched porcelain pots with a little sand timer so you know when to pour.",
                "Candlelit corners and lace curtains make it a lovely spot for a quiet date.",
                "They take reservations for afternoon tea, and the tiered stand of scones and tarts is generous.",
                "There is no wifi, which turns out to be a feature: people actually talk to each other.",
            ],
            'mix': [
                "Charming, but the tables are very close together, so you will hear your neighbours' conversation.",
                "The scones were excellent; the finger sandwiches less so.",
            ],
            'neg': [
                "We had a reservation and still waited twenty-five minutes for a table.",
                "Pretty room, but the tea went cold before the food arrived.",
            ],
        },
        reviews=[
            '5 2016', '4 2017',
            special(5, 2019,
                    "I came for the scones and left talking about the green "
                    "tea. They whisk ceremonial matcha to order in a proper "
                    "bowl, then pour it over steamed oat milk with a spoon of "
                    "honey, and it is the best thing on the menu: grassy, "
                    "sweet, not a hint of bitterness. The room is hushed and "
                    "candlelit and the service unhurried. I asked whether they "
                    "had wifi and the server smiled and said no, and honestly "
                    "that was the right answer.",
                    judge={'matcha latte': ('positive', 'whisked matcha over steamed milk praised as the best thing on the menu')}),
            '5 2018', '3 2019', '4 2020', '5 2021', '2 2022', '4 2023',
        ],
    ),
    dict(
        key='foghorn', name='Foghorn Coffee Co.', address='Pier 3, Harbour Front',
        postal='09401', lat=44.61420, lon=-62.04270, is_open=1,
        categories='Coffee & Tea, Seafood, Food Stands',
        hours=week('6:30-16:0'),
        attributes={
            'DogsAllowed': 'True', 'OutdoorSeating': 'True',
            'GoodForKids': 'True', 'NoiseLevel': "u'average'", 'WiFi': "'no'",
            'Alcohol': "u'none'", 'RestaurantsPriceRange2': '1',
            'Ambience': amb('casual'), 'BikeParking': 'True',
            'RestaurantsTakeOut': 'True', 'HasTV': 'False',
            'RestaurantsReservations': 'False',
            'BusinessParking': parking('street'),
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "You order at a window on Pier 3 and drink your coffee at picnic tables looking straight at the fishing boats.",
                "Dogs are more than welcome; there's a water bowl and a jar of biscuits on the counter.",
                "The clam chowder in a bread bowl is the best cheap lunch on the harbour.",
                "Kids love watching the gulls and the ferry come in while the grown-ups finish their coffee.",
            ],
            'mix': [
                "All the seating is outside, so on a windy day you'll be holding on to your cup.",
                "No wifi and no indoor tables; it's a grab-and-go shack with a view.",
            ],
            'neg': [
                "The coffee tasted burnt and the chowder was more potato than clam.",
                "Waited fifteen minutes at the window in the rain for a drip coffee.",
            ],
        },
        reviews=['5 2016', '4 2017', '3 2018', '5 2019 @Xena', '4 2020',
                 '2 2021', '5 2022', '4 2023'],
    ),
    dict(
        key='velvetcrow', name='The Velvet Crow', address='88 Tanner Street',
        postal='09403', lat=44.61055, lon=-62.05511, is_open=1,
        categories='Bars, Coffee & Tea, Music Venues, Nightlife, Cafes',
        hours=week('16:0-0:0', Monday=None, Friday='16:0-2:0',
                   Saturday='16:0-2:0', Sunday='14:0-22:0'),
        attributes={
            'Alcohol': "u'full_bar'", 'NoiseLevel': "u'loud'",
            'Ambience': amb('hipster', 'casual'),
            'RestaurantsReservations': 'False', 'HappyHour': 'True',
            'GoodForKids': 'False', 'HasTV': 'True', 'WiFi': "u'free'",
            'RestaurantsPriceRange2': '2', 'OutdoorSeating': 'None',
            'Music': music('live'),
            'GoodForMeal': meal('latenight', none=('dinner',)),
            'BestNights': "{'monday': False, 'tuesday': False, 'friday': True, 'wednesday': False, 'thursday': True, 'sunday': False, 'saturday': True}",
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Espresso martinis are the house specialty, and the bartenders make a proper one.",
                "Happy hour runs until seven and the drink prices are kind to your wallet.",
                "Dark velvet booths, mismatched lamps and a crowd that's there to have fun.",
            ],
            'mix': [
                "It gets loud after nine; this is not a place for a quiet chat.",
                "Good coffee in the afternoon, but by evening it's really a bar.",
            ],
            'neg': [
                "The bar was three deep and it took twenty minutes to get a drink.",
                "Sticky floors and a bathroom that needed attention.",
            ],
        },
        reviews=[
            '4 2016',
            special(5, 2017,
                    "Came on a Thursday for the jazz trio and stayed until "
                    "closing. There is a tiny stage in the back corner and a "
                    "band almost every night: jazz on Thursdays, folk on "
                    "Sundays, whoever is touring through on Fridays. The live "
                    "music is the reason to come, and the sound is "
                    "surprisingly good for such a small room. No reservations, "
                    "you just walk in and grab a booth. The espresso martini "
                    "is excellent and the bartenders stay friendly even when "
                    "they are slammed.",
                    judge={'live music': ('positive', 'nightly bands on the back stage praised as the reason to come')}),
            '5 2017', '3 2018', '4 2019',
            special(4, 2021,
                    "Between sets the bartender spins records from a crate "
                    "behind the bar, mostly old soul and some seventies rock "
                    "on vinyl, and it sounds warm and right in a room like "
                    "this. Drinks are strong, the coffee is better than a bar "
                    "has any reason to serve, and the booths are comfortable. "
                    "It does get loud and crowded after ten.",
                    name='Wes',
                    judge={'vinyl': ('positive', 'soul and rock records played on vinyl between sets')}),
            '2 2020', '5 2022', '4 2023',
        ],
    ),
    dict(
        key='littleotter', name='Little Otter Bakeshop', address='6 Fennel Street',
        postal='09402', lat=44.60933, lon=-62.04977, is_open=1,
        categories='Bakeries, Coffee & Tea, Desserts, Food',
        hours=week('7:0-14:0', Monday=None, Tuesday=None),
        attributes={
            'GoodForKids': 'True', 'OutdoorSeating': 'True',
            'NoiseLevel': "u'average'", 'WiFi': "'free'",
            'RestaurantsPriceRange2': '1', 'BikeParking': 'True',
            'RestaurantsTakeOut': 'True', 'RestaurantsReservations': 'False',
            'HasTV': 'False', 'DogsAllowed': 'True', 'Ambience': amb('casual'),
            'GoodForMeal': meal('dessert', 'breakfast'), 'Caters': 'True',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "The cinnamon buns come out of the oven at eight and are gone by ten.",
                "There's a step stool at the counter so little ones can point at the pastries themselves.",
                "A few tables out front under a striped awning, and dogs get a free biscuit.",
                "Free wifi and a long bench inside if you want to linger over a second coffee.",
            ],
            'mix': [
                "Closed Monday and Tuesday, which I always forget.",
                "The croissants are good but not quite as flaky as they look.",
            ],
            'neg': [
                "Sold out of almost everything by eleven on a Saturday.",
                "The coffee is an afterthought compared with the baking.",
            ],
        },
        reviews=[
            '5 2015', '4 2016', '5 2017',
            special(4, 2018,
                    "Lovely little bakery with a striped awning and a couple "
                    "of tables out front. The cinnamon buns and the "
                    "otter-shaped shortbread are the stars. I asked about "
                    "sourdough and they said they don't make it, they focus on "
                    "sweet things and enriched doughs, which is fair enough. "
                    "My toddler loved the step stool at the counter. Coffee is "
                    "fine, nothing special.",
                    judge={'sourdough': ('neutral', 'asked about sourdough; the bakery does not make it')}),
            '3 2019', '4 2020', '5 2021', '4 2022', '2 2023 @Mae',
        ],
    ),
    dict(
        key='copperkettle', name='The Copper Kettle', address='401 Mill Road',
        postal='09404', lat=44.60411, lon=-62.06322, is_open=1,
        categories='Diners, Breakfast & Brunch, Coffee & Tea, Restaurants',
        hours=week('5:30-14:0'),
        attributes={
            'HasTV': 'True', 'BusinessParking': parking('lot'),
            'NoiseLevel': "u'average'", 'RestaurantsPriceRange2': '1',
            'GoodForKids': 'True', 'DriveThru': 'False', 'WiFi': "u'no'",
            'Alcohol': "u'none'", 'OutdoorSeating': 'False',
            'RestaurantsReservations': 'False', 'RestaurantsTakeOut': 'True',
            'Ambience': amb('casual'), 'GoodForMeal': meal('breakfast', 'lunch'),
            'RestaurantsAttire': "u'casual'",
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Opens at half past five, so the fishermen and the early-shift nurses are already at the counter when I arrive.",
                "Bottomless drip coffee and a two-egg breakfast for less than ten dollars.",
                "The big parking lot out back means you never circle the block.",
                "There's a TV over the counter with the morning news and the marine forecast.",
            ],
            'mix': [
                "The coffee is diner coffee: hot, plentiful and not much more.",
                "The TVs are always on, which is either comforting or annoying depending on your mood.",
            ],
            'neg': [
                "My eggs were rubbery and the toast came out cold.",
                "The waitress forgot our order twice.",
            ],
        },
        reviews=[
            '4 2015', '5 2016', '3 2017',
            special(3, 2018,
                    "Classic diner. There's an old jukebox by the door that "
                    "supposedly plays 45s, vinyl singles, but it has been out "
                    "of order every time I've been. The breakfast is cheap and "
                    "filling, the coffee is endless, and the TV over the "
                    "counter runs the weather all morning. Plenty of room in "
                    "the lot. Nothing fancy, but it does the job at six in the "
                    "morning.",
                    judge={'vinyl': ('neutral', 'jukebox for vinyl singles mentioned, always out of order')}),
            '4 2019', '1 2020', '5 2021', '4 2022', '3 2023',
        ],
    ),
    dict(
        key='nightjar', name='Nightjar Espresso', address='19 Lamplighter Alley',
        postal='09403', lat=44.61177, lon=-62.05689, is_open=1,
        categories='Coffee & Tea, Cafes, Vinyl Records, Shopping',
        hours=week('12:0-0:0', Friday='12:0-2:0', Saturday='12:0-2:0',
                   Sunday='12:0-22:0'),
        attributes={
            'Ambience': amb('hipster', 'casual'), 'Alcohol': "'none'",
            'DogsAllowed': 'True', 'WiFi': "u'free'",
            'NoiseLevel': "u'average'", 'RestaurantsPriceRange2': '2',
            'OutdoorSeating': 'False', 'GoodForKids': 'False',
            'HasTV': 'False', 'GoodForMeal': meal('latenight', 'dessert'),
            'BikeParking': 'True', 'Music': music('background_music'),
            'RestaurantsTakeOut': 'True',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Open until two on weekends, which makes it the only place in town for a decaf cortado after a late show.",
                "The bar staff are happy to see your dog; mine has a favourite spot under the window seat.",
                "No alcohol, just very good espresso and a hipster crowd working on laptops until midnight.",
                "The late-night cake slices are generous and the chocolate olive-oil cake is a standout.",
            ],
            'mix': [
                "Seating is limited and the good window seats go fast after ten at night.",
                "The playlist is great but a bit loud if you're trying to read.",
            ],
            'neg': [
                "The espresso was sour and the barista was more interested in the turntable than the customers.",
                "Prices are high for a takeaway cup.",
            ],
        },
        reviews=[
            '4 2016', '5 2017',
            special(5, 2018,
                    "My favourite late-night spot. The back wall is crates of "
                    "second-hand LPs and there's a turntable by the register: "
                    "pick an album and they'll put it on while you drink your "
                    "cortado. I found an old jazz pressing for eight dollars "
                    "last week. The espresso is bright and sweet, the staff "
                    "are relaxed, and my dog gets fussed over every time. Open "
                    "until two on Friday and Saturday nights.",
                    name='Kira',
                    judge={'vinyl': ('positive', 'crates of second-hand LPs and the turntable praised')}),
            '4 2018', '5 2019',
            special(4, 2020,
                    "Good coffee, better records. I come for the vinyl bins "
                    "as much as the espresso; the selection is small but "
                    "someone clearly curates it with love, and prices are "
                    "fair. The cortado is strong and the cake is huge. It's a "
                    "hipster hangout through and through, laptops everywhere "
                    "until late.",
                    name='Wes',
                    judge={'vinyl': ('positive', 'curated vinyl bins praised')}),
            '3 2021', '4 2022', '3 2023',
        ],
    ),
    dict(
        key='saltbox', name='Saltbox Gelato & Coffee', address='3 The Esplanade',
        postal='09401', lat=44.61510, lon=-62.04655, is_open=1,
        categories='Gelato, Ice Cream & Frozen Yogurt, Coffee & Tea, Desserts, Food',
        hours=week('11:0-22:0'),
        attributes={
            'Ambience': amb('touristy', 'casual'), 'OutdoorSeating': 'True',
            'GoodForKids': 'True', 'RestaurantsPriceRange2': '2',
            'WiFi': "'no'", 'NoiseLevel': "u'loud'", 'Alcohol': "u'none'",
            'DogsAllowed': 'False', 'HasTV': 'False',
            'GoodForMeal': meal('dessert'), 'RestaurantsTakeOut': 'True',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Pistachio and salted caramel gelato in a waffle cone, eaten on the sea wall: perfect.",
                "The affogato, a scoop of fior di latte drowned in espresso, is the best of both worlds.",
                "A lively, touristy spot on the esplanade, with kids pressed against the glass choosing flavours.",
            ],
            'mix': [
                "Busy and loud on summer evenings, with a queue down the esplanade.",
                "Lovely gelato, ordinary coffee.",
            ],
            'neg': [
                "Nine dollars for a small cup and the flavour was mostly sugar.",
                "Tables outside were covered in melted gelato and nobody came to clean them.",
            ],
        },
        reviews=[
            '5 2016', '4 2017',
            special(4, 2018,
                    "Great gelato on the esplanade. On summer evenings there "
                    "are buskers along the sea wall, a guitarist and sometimes "
                    "a little brass band, so you get some music with your "
                    "cone, though it has nothing to do with the shop itself. "
                    "Get the pistachio. The coffee is ordinary but the "
                    "affogato is a treat.",
                    judge={'live music': ('neutral', 'buskers outside mentioned, not the venue')}),
            '5 2018', '3 2019',
            special(3, 2021,
                    "They had taro gelato as the flavour of the week. It was "
                    "very purple, a bit starchy, and honestly neither good nor "
                    "bad, just different. The pistachio is still the one to "
                    "get. Busy, loud and full of tourists in July, as you'd "
                    "expect on the front.",
                    name='Umar',
                    judge={'taro': ('neutral', 'taro gelato neither good nor bad')}),
            '4 2021', '2 2022', '5 2023',
        ],
    ),
    dict(
        key='paperlantern', name='Paper Lantern Boba', address='57 Harbour Street',
        postal='09402', lat=44.60988, lon=-62.04401, is_open=1,
        categories='Bubble Tea, Coffee & Tea, Juice Bars & Smoothies, Food',
        hours=week('12:0-22:0', Friday='12:0-23:30', Saturday='12:0-23:30'),
        attributes={
            'NoiseLevel': "u'loud'", 'WiFi': "u'free'",
            'RestaurantsPriceRange2': '1', 'Ambience': amb('trendy', 'casual'),
            'GoodForKids': 'True', 'RestaurantsDelivery': 'True',
            'OutdoorSeating': 'False', 'HasTV': 'True',
            'RestaurantsTakeOut': 'True', 'BikeParking': 'True',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Brown sugar milk tea with chewy tapioca pearls, and you can set the sweetness to thirty percent.",
                "Bright, trendy room with paper lanterns over every table and pop videos on the TVs.",
                "Cheap, fast, and they deliver until late.",
            ],
            'mix': [
                "It's loud and packed with teenagers after school, so don't plan on a conversation.",
                "The pearls were a bit hard on my second visit.",
            ],
            'neg': [
                "My drink was so sweet I couldn't finish it, even at half sugar.",
                "Waited forty minutes for a delivery that arrived with the lids leaking.",
            ],
        },
        reviews=[
            '4 2017',
            special(2, 2018,
                    "The matcha latte tasted like grass clippings stirred into "
                    "sweetened milk: gritty, with lumps of powder at the "
                    "bottom of the cup. Stick to the milk teas, which are "
                    "fine. The room is fun, with paper lanterns everywhere, "
                    "but it's very loud and the queue after school is long.",
                    judge={'matcha latte': ('negative', 'gritty, lumpy matcha latte')}),
            '5 2018',
            special(5, 2019,
                    "The taro milk tea here is the real thing: made with "
                    "mashed taro root, not lilac powder, so it's thick, nutty "
                    "and only lightly sweet. Add the pearls. I've tried every "
                    "boba shop in Kestrel Harbor and this is the one I keep "
                    "coming back to. It's noisy and full of students, and "
                    "they have free wifi if you want to stay.",
                    name='Vera',
                    judge={'taro': ('positive', 'taro milk tea made from real taro root praised')}),
            '3 2019',
            special(2, 2020,
                    "Tried the taro slush because a friend raved about it. It "
                    "tasted like purple chalk and sugar, and the ice wasn't "
                    "blended properly, so half of it was a block of purple "
                    "ice by the time I got to the bottom. The brown sugar "
                    "milk tea my partner had was better. Cheap, cheerful, "
                    "loud, and I'll stick to the classics next time.",
                    name='Wes',
                    judge={'taro': ('negative', 'taro slush tasted like chalk')}),
            '4 2021', '5 2022', '2 2023',
        ],
    ),
    dict(
        key='quietquire', name='The Quiet Quire', address='12 Vellum Court',
        postal='09402', lat=44.60762, lon=-62.05233, is_open=1,
        categories='Bookstores, Coffee & Tea, Cafes, Shopping',
        hours=week('8:0-20:0', Sunday='10:0-18:0'),
        attributes={
            'NoiseLevel': "u'quiet'", 'WiFi': "'free'",
            'RestaurantsPriceRange2': '1', 'GoodForKids': 'False',
            'Alcohol': 'None', 'OutdoorSeating': 'False', 'HasTV': 'False',
            'BikeParking': 'True', 'Ambience': amb('intimate'),
            'RestaurantsReservations': 'False', 'DogsAllowed': 'False',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "A bookshop with a coffee bar, where talking above a murmur earns you a look from the owner's cat.",
                "Armchairs between the poetry and travel shelves, free wifi, and nobody rushes you.",
                "Cheap tea by the pot and a shelf of second-hand paperbacks for a dollar each.",
            ],
            'mix': [
                "Small and often full of students writing essays; finding a seat can take a while.",
                "Strictly grown-up: not a place for children, and they say so on the door.",
            ],
            'neg': [
                "The coffee is weak and the muffins are from a packet.",
                "The owner shushed my friend for laughing, which felt a bit much.",
            ],
        },
        reviews=[
            '4 2015 h', '5 2016', '4 2017 h',
            special(5, 2018,
                    "The matcha latte here is excellent, properly whisked and "
                    "not too sweet, and it comes in a big handleless cup that "
                    "keeps it warm through a chapter or two. I spend most "
                    "Sunday afternoons in the armchair by the poetry shelf. "
                    "It's quiet, the wifi works, and nobody minds if you stay "
                    "for three hours on one drink.",
                    judge={'matcha latte': ('positive', 'well-whisked, not too sweet matcha latte')}),
            '3 2019 h', '5 2020', '3 2021 @Basil', '3 2022', '4 2023 h',
        ],
    ),
    dict(
        key='juniperrye', name='Juniper & Rye', address='240 Orchard Avenue',
        postal='09405', lat=44.60215, lon=-62.05876, is_open=1,
        categories='Breakfast & Brunch, Coffee & Tea, American (New), Restaurants',
        hours=week('8:0-15:0', Monday=None, Tuesday=None, Sunday='9:0-15:0'),
        attributes={
            'Ambience': amb('trendy', 'classy'),
            'GoodForMeal': meal('brunch', 'lunch'),
            'RestaurantsReservations': 'True', 'Alcohol': "u'beer_and_wine'",
            'RestaurantsPriceRange2': '3', 'NoiseLevel': "u'average'",
            'WiFi': "u'no'", 'OutdoorSeating': 'True', 'GoodForKids': 'True',
            'DogsAllowed': 'False', 'RestaurantsAttire': "u'casual'",
            'HasTV': 'False', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "The brunch menu is short and perfect: rye pancakes with juniper butter, smoked trout on toast, a proper mimosa.",
                "Linen napkins, fresh flowers and a patio in the orchard out back; it feels like a special occasion.",
                "Book ahead on weekends; they take reservations and you'll need one.",
            ],
            'mix': [
                "Beautiful food, but brunch for two came to nearly ninety dollars.",
                "It's classy, and the staff seem to know it.",
            ],
            'neg': [
                "Forty minutes for eggs on a Sunday, even with a reservation.",
                "The coffee was an afterthought next to the cocktail list.",
            ],
        },
        reviews=['5 2016', '4 2017', '5 2018', '4 2019', '3 2020', '5 2021',
                 '4 2022', '1 2023'],
    ),
    dict(
        key='bramble', name='Bramble Board Game Café', address='7 Guild Street',
        postal='09403', lat=44.61098, lon=-62.05302, is_open=1,
        categories='Board Game Cafes, Hobby Shops, Coffee & Tea, Cafes, Shopping',
        hours=week('12:0-23:0', Monday=None, Friday='12:0-1:0',
                   Saturday='12:0-1:0', Sunday='12:0-20:0'),
        attributes={
            'GoodForKids': 'True', 'HappyHour': 'True', 'NoiseLevel': "u'loud'",
            'Alcohol': "'beer_and_wine'", 'RestaurantsGoodForGroups': 'True',
            'RestaurantsReservations': 'False',
            'Ambience': amb('casual', u=True), 'RestaurantsPriceRange2': '2',
            'WiFi': "u'free'", 'OutdoorSeating': 'False', 'HasTV': 'False',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Six hundred games on the shelves and a game guru who will teach you the rules at your table.",
                "Happy hour pints and a cheese board make a weeknight game session feel like an event.",
                "Great with kids on a Sunday afternoon; there's a whole shelf of games for under-tens.",
            ],
            'mix': [
                "It's loud, with a dozen tables all shouting about dice rolls.",
                "There's a five-dollar table fee per person on top of whatever you eat.",
            ],
            'neg': [
                "Half the pieces were missing from the game we picked.",
                "The food is microwave nachos and not much else.",
            ],
        },
        reviews=[
            '4 2016',
            special(5, 2017,
                    "We spent four hours here and it felt like one. The "
                    "shelves of board games go floor to ceiling, from party "
                    "games to three-hour strategy epics, and the staff "
                    "recommended a co-op game for our group of five and "
                    "taught us the rules in ten minutes. Pints are cheap "
                    "during happy hour. My new favourite place for a "
                    "weeknight with friends.",
                    name='Greta',
                    judge={'board games': ('positive', 'huge board game library and staff teaching praised')}),
            '5 2017',
            special(3, 2018,
                    "They used to have a folk duo on Friday nights, but the "
                    "live music is gone now, and honestly the noise of twelve "
                    "tables of gamers is more than enough. Still a fun place "
                    "for a group, just louder and more crowded than it used "
                    "to be. The table fee adds up.",
                    judge={'live music': ('negative', 'live music no longer offered')}),
            '3 2018',
            special(4, 2019,
                    "Board game heaven. Every classic you can think of, "
                    "sleeved and mostly complete, and a guru who actually "
                    "knows the rules. Our kids loved the dexterity games; we "
                    "stayed for a long strategy game after they went home with "
                    "grandma. Loud, but that's part of the fun.",
                    name='Iris',
                    judge={'board games': ('positive', 'well-kept game collection and helpful guru')}),
            '4 2019',
            special(2, 2020,
                    "The games library is big but in rough shape: our copy "
                    "of a classic train game was missing half its cards, and "
                    "the guru had no idea how to play it. We gave up after an "
                    "hour. Beer was fine, the nachos were not.",
                    name='Linus',
                    judge={'board games': ('negative', 'incomplete games and an unhelpful guru')}),
            '5 2021', '2 2022',
        ],
    ),
    dict(
        key='oldmill', name='Old Mill Co-op Café', address='1 Millrace Lane',
        postal='09404', lat=44.60533, lon=-62.06088, is_open=1,
        categories='Vegan, Coffee & Tea, Cafes, Restaurants',
        hours=week('8:0-16:0', Saturday='9:0-15:0', Sunday=None),
        attributes={
            'BYOB': 'True', 'Alcohol': "'none'", 'RestaurantsPriceRange2': '1',
            'Ambience': amb('hipster', 'casual'), 'WiFi': "u'free'",
            'NoiseLevel': "'average'", 'GoodForKids': 'True',
            'DogsAllowed': 'True', 'OutdoorSeating': 'True',
            'RestaurantsReservations': 'False', 'HasTV': 'False',
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Everything is vegan, from the oat-milk cortado to the cashew cheesecake, and none of it tastes like a compromise.",
                "It's BYOB for the Friday supper club, with no corkage fee.",
                "A co-op run by its workers, with a sunny patio by the old mill race where dogs doze under the tables.",
            ],
            'mix': [
                "The menu is small and changes daily, so your favourite may not be on.",
                "Service is friendly but slow; everyone seems to be on a break.",
            ],
            'neg': [
                "The lentil soup was bland and the bread stale.",
                "The patio is lovely but the wasps in August are unbearable.",
            ],
        },
        reviews=[
            '5 2015', '4 2016',
            special(2, 2017,
                    "I'd heard great things about their sourdough, but the "
                    "loaf I bought was dense, gummy in the middle and barely "
                    "sour, as if it had been rushed. The oat-milk cortado was "
                    "good and the patio by the mill race is pretty, but I "
                    "won't buy bread here again.",
                    judge={'sourdough': ('negative', 'dense, gummy, barely sour loaf')}),
            '5 2018', '3 2019', '4 2020', '5 2022', '2 2023',
        ],
    ),
    dict(
        key='halyard', name='Halyard Wine & Coffee', address='22 Chandler Quay',
        postal='09401', lat=44.61388, lon=-62.04733, is_open=1,
        categories='Wine Bars, Bars, Coffee & Tea, Nightlife',
        hours=week('10:0-23:0', Monday=None),
        attributes={
            'Ambience': amb('romantic', 'intimate', 'classy'),
            'Alcohol': "u'full_bar'", 'RestaurantsReservations': 'True',
            'RestaurantsPriceRange2': '3', 'CoatCheck': 'False',
            'NoiseLevel': "u'average'", 'WiFi': "'no'", 'GoodForKids': 'False',
            'DogsAllowed': 'False', 'OutdoorSeating': 'True',
            'HappyHour': 'True', 'HasTV': 'False',
            'RestaurantsAttire': "'dressy'",
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "By day a serious espresso bar, by night a candlelit wine bar with a list of small producers.",
                "We booked a corner table for our anniversary and they had a card waiting for us.",
                "The cocktail list is short and clever, and the bartender made me a perfect negroni.",
            ],
            'mix': [
                "Gorgeous room, but small plates at these prices add up quickly.",
                "The coffee side feels neglected once the evening crowd arrives.",
            ],
            'neg': [
                "Snooty service when we asked for the cheaper bottle.",
                "Our reservation was lost and we stood at the bar for half an hour.",
            ],
        },
        reviews=['5 2016', '4 2017', '5 2018', '3 2019', '4 2020', '5 2021',
                 '1 2022', '4 2023'],
    ),
    dict(
        key='pocketpark', name='Pocket Park Kiosk', address='Pocket Park, Tanner Street',
        postal='09403', lat=44.60999, lon=-62.05588, is_open=0,
        categories='Coffee & Tea, Food Stands, Food',
        hours=week('6:0-13:0', Saturday='7:0-12:0', Sunday=None),
        attributes={
            'DriveThru': 'True', 'RestaurantsTakeOut': 'True',
            'OutdoorSeating': 'True', 'RestaurantsPriceRange2': '1',
            'HasTV': 'False', 'BusinessParking': parking('street'),
            'RestaurantsDelivery': 'False', 'BikeParking': 'True',
            'DogsAllowed': 'True', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "A tiny kiosk with a drive-thru lane on one side and a walk-up window on the other.",
                "Benches under the plane trees in the little park, and a water bowl for dogs.",
                "Opens at six, and the drip coffee is a dollar fifty.",
            ],
            'mix': [
                "Just coffee and a few pastries; don't expect a menu.",
                "Nowhere to sit when it rains.",
            ],
            'neg': [
                "The drive-thru lane is so tight I scraped a mirror.",
                "Closed without notice twice in one week.",
            ],
        },
        reviews=['4 2015', '5 2016', '3 2017', '4 2018', '4 2019', '1 2020',
                 '5 2021'],
    ),
    dict(
        key='sundaysparrow', name='Sunday Sparrow', address='5 Chapel Green',
        postal='09405', lat=44.60311, lon=-62.05499, is_open=1,
        categories='Breakfast & Brunch, Coffee & Tea, Cafes',
        hours={'Friday': '8:0-14:0', 'Saturday': '8:0-15:0',
               'Sunday': '7:30-15:0'},
        attributes={
            'GoodForMeal': meal('brunch', 'breakfast'), 'OutdoorSeating': 'True',
            'Ambience': amb('casual'), 'RestaurantsPriceRange2': '2',
            'Alcohol': "u'beer_and_wine'", 'GoodForKids': 'True',
            'NoiseLevel': "u'average'", 'WiFi': "u'no'",
            'RestaurantsReservations': 'True', 'DogsAllowed': 'True',
            'HasTV': 'False', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Only open Friday to Sunday, and the whole neighbourhood turns out for brunch.",
                "Sunday morning on the garden patio with a pot of coffee and the shakshuka is my idea of a good weekend.",
                "They open at half past seven on Sundays, so early risers can beat the brunch rush.",
                "Dogs on the patio, kids inside with crayons, and mimosas for the grown-ups.",
            ],
            'mix': [
                "Booking is wise after nine on a Sunday; walk-ins wait a long time.",
                "The food is good but the portions are on the small side.",
            ],
            'neg': [
                "Our eggs Benedict came with a split hollandaise and cold muffins.",
                "The patio heaters were off on a cold morning and we froze.",
            ],
        },
        reviews=['5 2016', '4 2017', '5 2018', '3 2019', '4 2020', '5 2021',
                 '4 2022', '2 2023'],
    ),
    dict(
        key='ironwork', name='Ironwork Coffee Lab', address='66 Foundry Street',
        postal='09404', lat=44.60644, lon=-62.06011, is_open=1,
        categories='Coffee & Tea, Coffee Roasteries, Food',
        hours=week('7:0-17:0', Saturday='8:0-16:0', Sunday='8:0-16:0'),
        attributes={
            'Alcohol': "u'none'", 'OutdoorSeating': 'False', 'WiFi': "'paid'",
            'NoiseLevel': "u'average'", 'RestaurantsPriceRange2': '2',
            'Ambience': amb('hipster', 'trendy'), 'GoodForKids': 'False',
            'HasTV': 'False', 'BikeParking': 'True', 'DogsAllowed': 'False',
            'RestaurantsTakeOut': 'True', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "They weigh every shot and the barista will talk you through the extraction if you ask.",
                "An industrial space in the old foundry, with iron beams and a big roaster in the middle of the room.",
                "The seasonal espresso blend is bright and fruity, and the flat white is the best in town.",
            ],
            'mix': [
                "Wifi costs money here, which feels odd these days.",
                "Very serious about coffee; if you just want a big sweet latte, go elsewhere.",
            ],
            'neg': [
                "The staff were condescending when I asked for sugar.",
                "Tiny cups, big prices.",
            ],
        },
        reviews=['3 2016', '2 2017', '4 2018', '3 2019', '4 2020', '5 2021',
                 '4 2021', '5 2022', '4 2023'],
    ),
    dict(
        key='cardamom', name='Cardamom House', address='9 Spice Market Lane',
        postal='09402', lat=44.60877, lon=-62.04522, is_open=1,
        categories='Middle Eastern, Coffee & Tea, Hookah Bars, Restaurants',
        hours=week('11:0-0:0'),
        attributes={
            'Smoking': "u'outdoor'", 'Alcohol': "u'none'", 'HasTV': 'True',
            'NoiseLevel': "u'average'", 'RestaurantsPriceRange2': '2',
            'OutdoorSeating': 'True', 'GoodForKids': 'True',
            'DogsAllowed': 'False', 'Ambience': amb('casual'),
            'WiFi': "u'free'", 'RestaurantsReservations': 'True',
            'GoodForMeal': meal('dinner', 'latenight'),
            'RestaurantsTakeOut': 'True', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Cardamom coffee poured from a long-handled brass pot, with a plate of dates on the side.",
                "The mezze platter and the lamb flatbread are excellent and the portions are huge.",
                "Open until midnight, with football on the TV and families at the big tables.",
            ],
            'mix': [
                "The hookah smoke drifts in from the patio when the door is open.",
                "Service is warm but the kitchen can be slow on busy nights.",
            ],
            'neg': [
                "The baklava was soggy and far too sweet.",
                "A loud football crowd on match nights; we couldn't hear ourselves think.",
            ],
        },
        reviews=[
            '4 2016',
            special(5, 2017,
                    "This is the closest thing to my grandmother's kitchen in "
                    "Aleppo that I have found on this side of the ocean. The "
                    "coffee is ground with cardamom and boiled in a brass "
                    "dallah, the hummus is silky and the kibbeh is fried to "
                    "order, just like home. The owner's mother makes the "
                    "pickles. There's football on the TV and it gets lively, "
                    "but I don't care: I'd come every week for the food.",
                    name='Pavel',
                    judge={'authentic': ('positive', 'food compared to home cooking in Aleppo')}),
            '5 2017',
            special(4, 2018,
                    "Is it authentic? I honestly can't say, I've never been "
                    "to the Levant. What I can say is that the mezze is "
                    "generous, the cardamom coffee is strong and fragrant, and "
                    "the staff are lovely to kids. Open late, which is rare "
                    "around here. The patio is for the hookah crowd.",
                    name='Umar',
                    judge={'authentic': ('neutral', 'reviewer cannot judge authenticity')}),
            '3 2018', '4 2019', '5 2021', '2 2022',
        ],
    ),
    dict(
        key='lighthouse', name="The Lighthouse Keeper's Café", address='Lighthouse Point Road',
        postal='09406', lat=44.62231, lon=-62.03108, is_open=0,
        categories='Coffee & Tea, Sandwiches, Restaurants',
        hours=week('9:0-17:0'),
        attributes={
            'Ambience': amb('touristy', 'casual'), 'OutdoorSeating': 'True',
            'GoodForKids': 'True', 'BusinessParking': parking('lot'),
            'WiFi': "u'no'", 'Alcohol': "u'none'",
            'RestaurantsPriceRange2': '2', 'NoiseLevel': "u'average'",
            'HasTV': 'False', 'DogsAllowed': 'False',
            'RestaurantsTakeOut': 'True', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "The view from the lighthouse lawn is worth the drive on its own; bring a jumper.",
                "Crab sandwiches and hot chocolate in the old keeper's cottage.",
                "A big gravel lot, picnic tables on the lawn and plenty of room for kids to run.",
            ],
            'mix': [
                "It's full of coach tours in summer, so expect a queue.",
                "Basic coffee at tourist prices.",
            ],
            'neg': [
                "The sandwiches were pre-wrapped and soggy.",
                "Closed early on a sunny afternoon with no explanation.",
            ],
        },
        reviews=[
            '4 2015', '5 2016',
            special(5, 2016,
                    "We got caught in a rainstorm on the point and ducked in "
                    "here. The staff pulled out a shelf of board games for the "
                    "kids and we ended up playing for two hours over hot "
                    "chocolate and crab sandwiches, with the fog rolling past "
                    "the windows. A lovely afternoon. The coffee is basic but "
                    "the setting makes up for everything.",
                    name='Hugo',
                    judge={'board games': ('positive', 'board games shelf made a rainy afternoon')}),
            '3 2017',
            special(2, 2018,
                    "The board games shelf is a sad pile of half-empty boxes "
                    "with no dice and torn cards; we gave up after one try. "
                    "The view is wonderful but the sandwiches were soggy and "
                    "the coffee was tourist-priced and bland.",
                    name='Iris',
                    judge={'board games': ('negative', 'board games incomplete and torn')}),
            '4 2018', '2 2019', '5 2019',
        ],
    ),
    dict(
        key='phophin', name='Pho & Phin', address='44 Harbour Street',
        postal='09402', lat=44.61003, lon=-62.04388, is_open=1,
        categories='Vietnamese, Coffee & Tea, Sandwiches, Restaurants',
        hours=week('10:0-20:0', Sunday=None),
        attributes={
            'RestaurantsPriceRange2': '1', 'RestaurantsTakeOut': 'True',
            'Alcohol': "u'none'", 'NoiseLevel': "u'average'", 'WiFi': "'free'",
            'OutdoorSeating': 'False', 'GoodForKids': 'True', 'HasTV': 'True',
            'RestaurantsDelivery': 'True', 'Ambience': amb('casual'),
            'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Vietnamese coffee dripped through a little phin filter straight onto condensed milk, strong and sweet.",
                "The banh mi is stuffed with pickled carrot, coriander and pork, and costs less than a sandwich at the chain down the street.",
                "Quick takeout at lunch; they have your order ready in five minutes.",
            ],
            'mix': [
                "A tiny dining room with a TV playing music videos; most people take their food away.",
                "The pho broth is good but could use more depth.",
            ],
            'neg': [
                "My iced coffee was mostly ice.",
                "They got my takeout order wrong twice.",
            ],
        },
        reviews=[
            '4 2021',
            special(5, 2021,
                    "Finally, Vietnamese coffee made properly: dark-roast "
                    "robusta dripped slowly through a phin onto condensed "
                    "milk, exactly the way the street stalls in Hanoi do it. "
                    "The banh mi has a crackly baguette and real pate. It "
                    "tastes like the real thing, and it costs almost nothing. "
                    "Takeout is fast.",
                    name='Opal',
                    judge={'authentic': ('positive', 'coffee and banh mi compared to Hanoi street stalls')}),
            '5 2022',
            special(2, 2022,
                    "Everyone calls it authentic but the pho broth tasted "
                    "like it came from a carton, sweet and flat, with none of "
                    "the charred-onion depth you'd expect. The coffee is good. "
                    "The banh mi is fine. I wanted more.",
                    name='Zelda',
                    judge={'authentic': ('negative', 'pho broth judged inauthentic')}),
            '4 2022',
            special(2, 2022,
                    "Not very traditional: the banh mi came with iceberg "
                    "lettuce and mayonnaise from a squeeze bottle, and the "
                    "pho was missing the herbs plate entirely. The staff were "
                    "nice and it's cheap, but it felt like a watered-down "
                    "version of the food.",
                    name='Kira',
                    judge={'authentic': ('negative', 'dishes described as a watered-down, untraditional version')}),
            special(4, 2023,
                    "Really authentic flavours for a small harbour town. The "
                    "broth is clear and fragrant with star anise, the herbs "
                    "plate is generous, and the iced coffee is strong enough "
                    "to wake the dead. Great value and quick takeout at "
                    "lunchtime.",
                    name='Umar',
                    judge={'authentic': ('positive', 'authentic flavours praised')}),
            '3 2023',
        ],
    ),
    dict(
        key='gristgrain', name='Grist & Grain', address="18 Baker's Row",
        postal='09405', lat=44.60455, lon=-62.05312, is_open=1,
        categories='Bakeries, Coffee & Tea, Breakfast & Brunch, Food',
        hours=week('6:30-15:0', Sunday='7:0-13:0'),
        attributes={
            'OutdoorSeating': 'True', 'GoodForKids': 'True',
            'RestaurantsPriceRange2': '2', 'WiFi': "u'free'",
            'Alcohol': "u'none'", 'NoiseLevel': "u'average'", 'HasTV': 'False',
            'BikeParking': 'True', 'DogsAllowed': 'False',
            'GoodForMeal': meal('breakfast', 'lunch'),
            'RestaurantsTakeOut': 'True', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Bread comes out of the wood-fired oven at seven, and the whole street smells of it.",
                "A few tables on the pavement in the sun, perfect for a bacon roll and a flat white.",
                "The seeded rye and the morning buns are the best baking in town.",
            ],
            'mix': [
                "Bread sells out by early afternoon; come early if you want a loaf.",
                "The coffee is good but the queue on Saturdays is long.",
            ],
            'neg': [
                "The croissant I had was pale and underbaked.",
                "Pricey for a bakery.",
            ],
        },
        reviews=[
            '5 2016',
            special(5, 2016,
                    "The sourdough here is the real deal: a dark, blistered "
                    "crust, an open, glossy crumb and a proper tang. I buy a "
                    "loaf every Saturday and it keeps for days. They'll slice "
                    "it for you if you ask. Grab a morning bun and a flat "
                    "white and sit at one of the pavement tables while the "
                    "second batch comes out of the oven.",
                    judge={'sourdough': ('positive', 'sourdough crust, crumb and tang praised')}),
            '4 2017', '3 2018',
            special(4, 2019,
                    "Their country loaf is naturally leavened over two days "
                    "and baked dark in the wood oven, and you can taste the "
                    "difference: chewy, tangy, with a crust that crackles. "
                    "It's my weekly bread now. The pastries are good too, and "
                    "there's outdoor seating when the weather behaves.",
                    judge={'sourdough': ('positive', 'naturally leavened country loaf praised (sourdough not named)')}),
            '5 2020', '4 2021', '2 2022', '5 2023',
        ],
    ),
    dict(
        key='moonrise', name='Moonrise Donuts & Coffee', address='300 Mill Road',
        postal='09404', lat=44.60388, lon=-62.06477, is_open=1,
        categories='Donuts, Coffee & Tea, Food',
        hours=week('5:0-1:0'),
        attributes={
            'DriveThru': 'True', 'GoodForKids': 'True', 'HasTV': 'True',
            'NoiseLevel': "u'very_loud'", 'RestaurantsPriceRange2': '1',
            'WiFi': "u'free'", 'OutdoorSeating': 'False',
            'BusinessParking': parking('street'), 'Ambience': amb('casual'),
            'GoodForMeal': meal('latenight', 'breakfast', 'dessert'),
            'RestaurantsTakeOut': 'True', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={
            'pos': [
                "Hot glazed donuts at one in the morning through the drive-thru; what more do you want?",
                "The maple bacon donut and a large coffee cost about four dollars.",
                "Open from five in the morning until one at night, every day of the week.",
            ],
            'mix': [
                "It's very loud inside, with the fryer, the radio and the TVs all going at once.",
                "The coffee is fine; you're here for the donuts.",
            ],
            'neg': [
                "Stale donuts at seven in the morning, which should be impossible.",
                "The drive-thru speaker is so crackly they got our order wrong.",
            ],
        },
        reviews=[
            '4 2015', '5 2016', '3 2017',
            special(5, 2018,
                    "Their seasonal taro donut is fantastic: a purple glaze "
                    "with real taro flavour, nutty and not too sweet, on a "
                    "light yeast ring. I drove back the next night for two "
                    "more. The place is chaos, loud and bright, but the "
                    "drive-thru is quick and the coffee is hot.",
                    name='Wes',
                    judge={'taro': ('positive', 'seasonal taro donut praised')}),
            '1 2019', '5 2020', '4 2022', '3 2023',
        ],
    ),
    dict(
        # Deliberately without reviews: review-based conditions have special
        # rules for items with no reviews.
        key='heronhall', name='Heron Hall Gallery Café', address='2 Museum Steps',
        postal='09406', lat=44.60120, lon=-62.05033, is_open=1,
        categories='Art Galleries, Coffee & Tea, Cafes, Arts & Entertainment',
        hours=week('10:0-17:0', Monday=None, Tuesday=None),
        attributes={
            'NoiseLevel': "u'quiet'", 'WiFi': "u'no'",
            'WheelchairAccessible': 'True',
            'Ambience': amb('classy', 'casual', none=('touristy',)),
            'RestaurantsReservations': 'False', 'RestaurantsPriceRange2': '2',
            'GoodForKids': 'True', 'OutdoorSeating': 'False',
            'HasTV': 'False', 'BusinessAcceptsCreditCards': 'True',
        },
        notes={'pos': [], 'mix': [], 'neg': []},
        reviews=[],
    ),
]

# ---------------------------------------------------------------------------
# Requests


def meta(path, **m):
    ev = {'kind': 'item_meta', 'path': path}
    ev.update(m)
    return ev


def attr(name, **m):
    return meta(['attributes', name], **m)


def cats(**m):
    return meta(['categories'], **m)


def hours(day, rng):
    return {'kind': 'item_meta_hours', 'path': ['hours', day], 'true': rng}


def leaf(aspect, evidence):
    return {'aspect': aspect, 'evidence': evidence}


def AND(*args):
    return {'op': 'AND', 'args': list(args)}


def OR(*args):
    return {'op': 'OR', 'args': list(args)}


def review_text(pattern, friends=None, hops=None):
    ev = {'kind': 'review_text', 'pattern': pattern}
    if friends:
        ev['social_filter'] = {'friends': friends, 'hops': hops}
        ev['min_matches'] = 1
    return ev


def sentiment(topic, friends, hops):
    return {'kind': 'review_sentiment', 'topic': topic,
            'sentiment': 'positive', 'min_positive': 1,
            'social_filter': {'friends': friends, 'hops': hops}}


def social_rating(friends, hops, min_stars=4):
    return {'kind': 'social_rating', 'min_stars': min_stars,
            'social_filter': {'friends': friends, 'hops': hops},
            'min_matches': 1}


def group_rating(group, field, fop, value, metric, threshold, op):
    return {'kind': 'review_group_rating', 'group': group,
            'group_filter': {'field': field, 'operator': fop, 'value': value},
            'metric': metric, 'threshold': threshold, 'operator': op}


# (group, scenario, gold cafe key, text, structure)
REQUESTS = [
    ('G01', 'Young Family', 'lantern',
     "I've got a toddler and a baby in the back seat. I need a kid-friendly "
     "place where I can get a coffee and some soup without unbuckling anyone, "
     "so a drive-thru would be ideal. And please, no TVs: my eldest turns into "
     "a zombie in front of a screen.",
     AND(leaf('drive_thru', attr('DriveThru', true='True')),
         leaf('good_for_kids', attr('GoodForKids', true='True')),
         leaf('no_tv', attr('HasTV', true='False')))),
    ('G01', 'Remote Worker', 'tidewater',
     "I work remotely and need a quiet cafe with free wifi where I can spend "
     "the morning on my laptop. Mid-priced is fine, and I cycle everywhere, so "
     "there has to be somewhere to lock my bike.",
     AND(leaf('quiet', attr('NoiseLevel', true="u'quiet'")),
         leaf('free_wifi', attr('WiFi', contains='free')),
         leaf('mid_price', attr('RestaurantsPriceRange2', true='2')),
         leaf('bike_parking', attr('BikeParking', true='True')))),
    ('G01', 'Anniversary Night', 'halyard',
     "It's our anniversary. Looking for a romantic spot that takes "
     "reservations and has a full bar so I can order a proper cocktail. Happy "
     "to splurge: the pricier the better.",
     AND(leaf('romantic', attr('Ambience', contains="'romantic': True")),
         leaf('full_bar', attr('Alcohol', true="u'full_bar'")),
         leaf('reservations', attr('RestaurantsReservations', true='True')),
         leaf('price_high', attr('RestaurantsPriceRange2', true='3')))),

    ('G02', 'Music Lover', 'velvetcrow',
     "I love discovering local bands. Looking for a relaxed, casual place "
     "where reviewers rave about the live music. I don't want to book ahead; "
     "I like to just walk in.",
     AND(leaf('live_music', review_text('live music')),
         leaf('casual_vibe', attr('Ambience', contains="'casual': True")),
         leaf('no_reservations', attr('RestaurantsReservations', true='False')))),
    ('G02', 'Tea Date', 'marigold',
     "Looking for a quiet spot for a tea date where people love the matcha "
     "latte. No wifi, please: I want my date looking at me, not at a laptop.",
     AND(leaf('matcha_latte', review_text('matcha latte')),
         leaf('quiet', attr('NoiseLevel', contains='quiet')),
         leaf('no_wifi', attr('WiFi', true="u'no'")))),
    ('G02', 'Bread Pilgrim', 'gristgrain',
     "On a pilgrimage for great sourdough. It should be a real bakery, and "
     "I'd like to sit outside in the sun with my loaf and a coffee.",
     AND(leaf('sourdough', review_text('sourdough')),
         leaf('cat_bakeries', cats(contains='Bakeries')),
         leaf('outdoor', attr('OutdoorSeating', true='True')))),

    ('G03', 'Night Shift', 'copperkettle',
     "I finish a night shift and want breakfast before bed. It has to be open "
     "on Monday between 6 and 7 in the morning, with a TV for the news and a "
     "parking lot so I'm not circling the block.",
     AND(leaf('monday_early', hours('Monday', '6:0-7:0')),
         leaf('has_tv', attr('HasTV', true='True')),
         leaf('parking_lot', attr('BusinessParking', contains="'lot': True")))),
    ('G03', 'Night Owl', 'nightjar',
     "Night owl here, looking for a hipster coffee place that's still open on "
     "a Friday between 10pm and 1am. No alcohol, I just want a late coffee, "
     "and somewhere good for late-night snacks.",
     AND(leaf('friday_late', hours('Friday', '22:0-1:0')),
         leaf('hipster', attr('Ambience', contains="'hipster': True")),
         leaf('alcohol_none', attr('Alcohol', contains='none')),
         leaf('latenight', attr('GoodForMeal', contains="'latenight': True")))),
    ('G03', 'Early Brunch', 'sundaysparrow',
     "Planning Sunday brunch and we're early risers: it must be open on "
     "Sunday from 8 to 10 in the morning. A proper brunch place with outdoor "
     "seating, please.",
     AND(leaf('sunday_morning', hours('Sunday', '8:0-10:0')),
         leaf('brunch', attr('GoodForMeal', contains="'brunch': True")),
         leaf('outdoor', attr('OutdoorSeating', true='True')))),

    ('G04', 'Recent Favourite', 'ironwork',
     "Adults-only indoor cafe wanted, so no kids and no outdoor seating, and I "
     "only trust recent reviews: since 2021 people should be rating it very "
     "highly.",
     AND(leaf('no_kids', attr('GoodForKids', true='False')),
         leaf('no_outdoor', attr('OutdoorSeating', true='False')),
         leaf('post_2021_avg_gte_4.0',
              group_rating('post_2021', 'date', 'gte', '2021-01-01',
                           'avg_stars', 4.0, 'gte')))),
    ('G04', 'Tough Crowd', 'quietquire',
     "I want a quiet cafe that even the harshest critics like: reviewers who "
     "usually hand out low ratings should still rate it well here.",
     AND(leaf('quiet', attr('NoiseLevel', contains='quiet')),
         leaf('harsh_avg_gte_3.5',
              group_rating('harsh_reviewers', ['user', 'average_stars'], 'lt',
                           3.5, 'avg_stars', 3.5, 'gte')))),
    ('G04', 'Lunch Rush', 'phophin',
     "Looking for a cheap takeout lunch spot that's clearly popular right "
     "now, with plenty of reviews since 2022.",
     AND(leaf('price_cheap', attr('RestaurantsPriceRange2', true='1')),
         leaf('takeout', attr('RestaurantsTakeOut', true='True')),
         leaf('post_2022_count_gte_4',
              group_rating('post_2022', 'date', 'gte', '2022-01-01',
                           'count', 4, 'gte')))),

    ('G05', 'Dessert Hunt', 'saltbox',
     "Dessert hunt! Either a place serving gelato, somewhere with an upscale "
     "atmosphere, or a spot with a coat check: any of these works.",
     OR(leaf('cat_gelato', cats(contains='Gelato')),
        leaf('ambience_upscale', attr('Ambience', contains="'upscale': True")),
        leaf('coat_check', attr('CoatCheck', true='True')))),
    ('G05', 'Something Different', 'cardamom',
     "Feeling adventurous. Either a Middle Eastern place, somewhere that "
     "allows smoking outside, or a cafe that serves alcohol.",
     OR(leaf('cat_middle_eastern', cats(contains='Middle Eastern')),
        leaf('smoking_outdoor', attr('Smoking', true="u'outdoor'")),
        leaf('Alcohol', attr('Alcohol', true='True')))),
    ('G05', 'Sugar Rush', 'moonrise',
     "Sugar rush needed. Either a donut shop, somewhere so loud nobody will "
     "hear my kids, or a divey spot.",
     OR(leaf('cat_donuts', cats(contains='Donuts')),
        leaf('very_loud', attr('NoiseLevel', true="u'very_loud'")),
        leaf('ambience_divey', attr('Ambience', contains="'divey': True")))),

    ('G06', 'Weekend Treat', 'juniperrye',
     "Weekend treat. Either a classy place that's good for brunch, or a wine "
     "bar where I can bring my dog.",
     OR(AND(leaf('brunch', attr('GoodForMeal', contains="'brunch': True")),
            leaf('classy', attr('Ambience', contains="'classy': True"))),
        AND(leaf('cat_wine_bars', cats(contains='Wine Bars')),
            leaf('dogs_allowed', attr('DogsAllowed', true='True'))))),
    ('G06', 'Family Game Night', 'bramble',
     "Family game night out. Either a board game cafe that's good for kids, "
     "or a quiet place with a happy hour.",
     OR(AND(leaf('cat_board_games', cats(contains='Board Game')),
            leaf('good_for_kids', attr('GoodForKids', true='True'))),
        AND(leaf('happy_hour', attr('HappyHour', true='True')),
            leaf('quiet', attr('NoiseLevel', contains='quiet'))))),
    ('G06', 'Plant-Based', 'oldmill',
     "Either a vegan cafe where I can bring my own bottle, or a pricey juice "
     "bar.",
     OR(AND(leaf('byob', attr('BYOB', true='True')),
            leaf('cat_vegan', cats(contains='Vegan'))),
        AND(leaf('cat_juice_bars', cats(contains='Juice Bars')),
            leaf('price_high', attr('RestaurantsPriceRange2', true='3'))))),

    ('G07', 'Dog Walk', 'foghorn',
     "Out on a long dog walk. I need a place that either allows dogs or lets "
     "me bring my own drink, and that's either a seafood spot or has a "
     "touristy vibe.",
     AND(OR(leaf('dogs_allowed', attr('DogsAllowed', true='True')),
            leaf('byob', attr('BYOB', true='True'))),
         OR(leaf('cat_seafood', cats(contains='Seafood')),
            leaf('ambience_touristy', attr('Ambience', contains="'touristy': True"))))),
    ('G07', 'Day Trip', 'lighthouse',
     "Day trip by car with the family. The place should either have a parking "
     "lot or a drive-thru, and either be a sandwich place or a touristy spot.",
     AND(OR(leaf('parking_lot', attr('BusinessParking', contains="'lot': True")),
            leaf('drive_thru', attr('DriveThru', true='True'))),
         OR(leaf('cat_sandwiches', cats(contains='Sandwiches')),
            leaf('ambience_touristy', attr('Ambience', contains="'touristy': True"))))),
    ('G07', 'Culture Break', 'heronhall',
     "Culture break. A quiet place that's either an art gallery or a "
     "bookshop, and either wheelchair accessible or classy. Not a bar.",
     AND(leaf('quiet', attr('NoiseLevel', contains='quiet')),
         OR(leaf('cat_art_galleries', cats(contains='Art Galleries')),
            leaf('cat_bookstores', cats(contains='Bookstores'))),
         OR(leaf('wheelchair', attr('WheelchairAccessible', true='True')),
            leaf('classy', attr('Ambience', contains="'classy': True"))),
         leaf('not_a_bar', cats(not_contains='Bars')))),

    ('G08', 'Student Budget', 'paperlantern',
     "Student on a budget: free wifi and cheap prices, and either a bubble "
     "tea shop or somewhere loud and trendy.",
     AND(leaf('free_wifi', attr('WiFi', contains='free')),
         leaf('price_cheap', attr('RestaurantsPriceRange2', true='1')),
         OR(leaf('cat_bubble_tea', cats(contains='Bubble Tea')),
            AND(leaf('loud', attr('NoiseLevel', contains='loud')),
                leaf('trendy', attr('Ambience', contains="'trendy': True")))))),
    ('G08', 'Coffee on the Go', 'pocketpark',
     "Coffee on the go: it needs a drive-thru and takeout. Ideally a food "
     "stand, or otherwise somewhere with outdoor seating where my dog can "
     "come too.",
     AND(leaf('drive_thru', attr('DriveThru', true='True')),
         leaf('takeout', attr('RestaurantsTakeOut', true='True')),
         OR(leaf('cat_food_stands', cats(contains='Food Stands')),
            AND(leaf('outdoor', attr('OutdoorSeating', true='True')),
                leaf('dogs_allowed', attr('DogsAllowed', true='True')))))),
    ('G08', 'Bakery Run', 'littleotter',
     "Kid-friendly bakery wanted. It should either serve beer and wine, or "
     "let me bring the dog and have free wifi.",
     AND(leaf('cat_bakeries', cats(contains='Bakeries')),
         leaf('good_for_kids', attr('GoodForKids', true='True')),
         OR(leaf('beer_and_wine', attr('Alcohol', contains='beer_and_wine')),
            AND(leaf('dogs_allowed', attr('DogsAllowed', true='True')),
                leaf('free_wifi', attr('WiFi', contains='free')))))),

    ('G09', 'Record Hunter', 'nightjar',
     "(User: Iris; friends: [Hugo, Jonah]) Jonah and his friends know their "
     "records. Looking for a dog-friendly cafe with no alcohol where Jonah or "
     "one of his friends praised the vinyl.",
     AND(leaf('dogs_allowed', attr('DogsAllowed', true='True')),
         leaf('no_alcohol', attr('Alcohol', true="'none'")),
         leaf('social_vinyl', review_text('vinyl', ['Jonah'], 1)))),
    ('G09', 'Trusted Ratings', 'tidewater',
     "(User: Ada; friends: [Basil, Cora]) I trust my circle's ratings. "
     "Looking for a quiet cafe with free wifi that I or someone in my circle "
     "rated highly.",
     AND(leaf('free_wifi', attr('WiFi', contains='free')),
         leaf('quiet', attr('NoiseLevel', contains='quiet')),
         leaf('social_rating', social_rating(['Ada'], 1)))),
    ('G09', 'Game Buddies', 'bramble',
     "(User: Hugo; friends: [Greta, Iris, Linus]) My game group has opinions. "
     "Looking for a kid-friendly place where my friends and I were positive "
     "about the board games.",
     AND(leaf('good_for_kids', attr('GoodForKids', true='True')),
         leaf('social_board_games', sentiment('board games', ['Hugo'], 1)))),

    ('G10', 'Homesick', 'cardamom',
     "(User: Mae; friends: [Linus, Nico, Quincy]) Homesick for real home "
     "cooking. Looking for a cafe with a TV where someone in my network, "
     "friends of friends included, said the food tastes authentic.",
     AND(leaf('has_tv', attr('HasTV', true='True')),
         leaf('social_authentic', sentiment('authentic', ['Mae'], 2)))),
    ('G10', 'Network Pick', 'foghorn',
     "(User: Zelda; friends: [Quincy, Yusuf]) Dog walk with a view. A "
     "dog-friendly place with outdoor seating that someone in my network, "
     "friends of friends included, rated highly.",
     AND(leaf('dogs_allowed', attr('DogsAllowed', true='True')),
         leaf('outdoor', attr('OutdoorSeating', true='True')),
         leaf('social_rating', social_rating(['Zelda'], 2)))),
    ('G10', 'Taro Fan', 'paperlantern',
     "(User: Thea; friends: [Silas, Umar]) I'm obsessed with taro. Looking "
     "for a lively, loud spot where someone in my network, friends of friends "
     "included, loved the taro.",
     AND(leaf('loud', attr('NoiseLevel', contains='loud')),
         leaf('social_taro', sentiment('taro', ['Thea'], 2)))),
]

# ---------------------------------------------------------------------------
# A compact checker of the evaluation rules (docs/dataset-format.md), limited
# to what the demo uses. Results: 1 true, 0 unknown, -1 false.

_B_QUOTED = re.compile(r'''^u?['"](.+)['"]$''')


def pass_a(v):
    if not isinstance(v, str):
        return v
    t = v.strip()
    if t == 'None':
        return None
    if t == 'True':
        return True
    if t == 'False':
        return False
    if len(t) >= 3 and ((t.startswith("u'") and t.endswith("'")) or
                        (t.startswith('u"') and t.endswith('"'))):
        return t[2:-1]
    if (t.startswith('{') and t.endswith('}')) or \
       (t.startswith('[') and t.endswith(']')):
        try:
            r = ast.literal_eval(t)
            if isinstance(r, (dict, list)):
                return r
        except (ValueError, SyntaxError):
            pass
    return v


def pass_b(s):
    if not isinstance(s, str):
        return s
    if s == 'True':
        return True
    if s == 'False':
        return False
    if s.lower() == 'none':
        return None
    m = _B_QUOTED.match(s)
    if m:
        return m.group(1)
    if s.startswith('{') or s.startswith('['):
        try:
            return ast.literal_eval(s)
        except (ValueError, SyntaxError):
            return s
    return s


def canon(v):
    # Python's str() is exactly the canonical text form of the rules.
    return str(v).lower()


def eq(actual, expected):
    e = pass_b(expected)
    if isinstance(actual, str) and isinstance(e, str):
        if actual.lower() == e.lower():
            return True
    elif actual == e:
        return True
    return str(e).lower() in str(actual).lower()


def resolve(view, path):
    cur = view
    for k in path:
        if isinstance(cur, dict) and k in cur:
            cur = cur[k]
        else:
            return None
    return pass_b(cur)


def eval_item_meta(ev, view):
    v = resolve(view, ev.get('path', []))
    if 'not_contains' in ev:
        if v is None:
            return 1
        return -1 if ev['not_contains'].lower() in canon(v) else 1
    if 'contains' in ev:
        return 1 if ev['contains'].lower() in canon(v) else -1
    if 'not_true' in ev:
        if v is None:
            return 1
        return -1 if eq(v, ev['not_true']) else 1
    if v is None:
        return ev.get('missing', 0)
    if isinstance(v, dict) and v and all(isinstance(x, bool) for x in v.values()):
        return 1 if any(v.values()) else -1
    if 'true' in ev and not any(k in ev for k in ('false', 'neutral')):
        return 1 if eq(v, ev['true']) else -1
    raise NotImplementedError('matcher not used by the demo: %r' % ev)


def parse_range(s):
    parts = s.split('-')
    if len(parts) != 2:
        return None
    out = []
    for p in parts:
        hm = p.split(':')
        if len(hm) != 2:
            return None
        try:
            out.append(int(hm[0]) * 60 + int(hm[1]))
        except ValueError:
            return None
    return out


def eval_hours(ev, view):
    h = resolve(view, ev['path'])
    if not h:
        return ev.get('missing', 0)
    have, want = parse_range(h), parse_range(ev['true'])
    if have is None or want is None:
        return -1
    s, e = have
    if e < s:
        e += 1440
    # The required range is deliberately not adjusted across midnight.
    return 1 if s <= want[0] and e >= want[1] else -1


def judgement(cache, review_id, aspect):
    entry = cache.get(review_id + ':' + aspect)
    if entry is None:
        return 'not_mentioned'
    j = entry.get('judgement')
    if j is True:
        return 'positive'
    if not isinstance(j, str):
        return 'not_mentioned'
    j = j.lower()
    if j in ('positive', 'pos', 'true', 'yes'):
        return 'positive'
    if j in ('negative', 'neg', 'false', 'no'):
        return 'negative'
    if j in ('neutral', 'mixed'):
        return 'neutral'
    return 'not_mentioned'


def net_fwd(fg, anchors, hops):
    net = list(anchors)
    if hops >= 1:
        for a in anchors:
            net += fg.get(a, [])
    if hops >= 2:
        for p in list(net):
            net += fg.get(p, [])
    return set(net)


def rev_qualifies(fg, name, anchors, hops):
    if name in anchors:
        return True
    mine = fg.get(name, [])
    if hops >= 1 and any(a in mine for a in anchors):
        return True
    if hops >= 2 and any(any(a in fg.get(f, []) for a in anchors) for f in mine):
        return True
    return False


def compare(a, op, b):
    return {'gte': a >= b, 'gt': a > b, 'lt': a < b, 'lte': a <= b}.get(op, False)


def eval_leaf(ev, ctx, i):
    kind = ev.get('kind', 'item_meta')
    view, reviews = ctx['views'][i], ctx['reviews'][i]
    fg, cache, names = ctx['fg'], ctx['cache'], ctx['names'][i]
    if kind == 'item_meta':
        return eval_item_meta(ev, view)
    if kind == 'item_meta_hours':
        return eval_hours(ev, view)
    if kind == 'review_text':
        sf = ev.get('social_filter')
        if not sf:
            if not reviews:
                return 0
            return 1 if any(judgement(cache, r['review_id'], ev['pattern']) == 'positive'
                            for r in reviews) else -1
        if not reviews:
            return -1
        n = sum(1 for k, r in enumerate(reviews)
                if judgement(cache, r['review_id'], ev['pattern']) == 'positive'
                and rev_qualifies(fg, names[k], sf['friends'], sf['hops']))
        return 1 if n >= sf.get('min_matches', 1) else -1
    if kind == 'review_sentiment':
        if not reviews or not ev.get('topic'):
            return -1
        keep = range(len(reviews))
        sf = ev.get('social_filter')
        if sf:
            net = net_fwd(fg, sf['friends'], sf['hops'])
            keep = [k for k in keep if names[k] in net]
        js = [judgement(cache, reviews[k]['review_id'], ev['topic']) for k in keep]
        pos, neg = js.count('positive'), js.count('negative')
        assert ev['sentiment'] == 'positive'
        return 1 if pos >= ev.get('min_positive', 1) and pos > neg else -1
    if kind == 'social_rating':
        sf = ev.get('social_filter')
        if not reviews or not sf:
            return -1
        n = sum(1 for k, r in enumerate(reviews)
                if r['stars'] >= ev['min_stars']
                and rev_qualifies(fg, names[k], sf['friends'], sf['hops']))
        return 1 if n >= sf.get('min_matches', 1) else -1
    if kind == 'review_group_rating':
        if not reviews:
            return -1
        gf = ev['group_filter']
        sel = []
        for r in reviews:
            path = gf['field'] if isinstance(gf['field'], list) else [gf['field']]
            v = r
            for k in path:
                v = v.get(k) if isinstance(v, dict) else None
            if v is None:
                continue
            want = gf['value']
            if isinstance(v, str) and isinstance(want, str) and '-' in v:
                ok = compare(v, gf['operator'], want)
            else:
                ok = compare(float(v), gf['operator'], float(want))
            if ok:
                sel.append(r)
        if ev['metric'] == 'count':
            m = len(sel)
        elif ev['metric'] == 'avg_stars':
            if not sel:
                return -1
            m = sum(r['stars'] for r in sel) / len(sel)
        else:
            return -1
        return 1 if compare(m, ev['operator'], ev['threshold']) else -1
    return 0


def evaluate(node, ctx, i):
    if 'op' not in node:
        return eval_leaf(node.get('evidence', {}), ctx, i)
    vals = [evaluate(c, ctx, i) for c in node.get('args', [])]
    if not vals:
        return 0
    if node['op'] == 'AND':
        return -1 if -1 in vals else (0 if 0 in vals else 1)
    if node['op'] == 'NOT':
        return -vals[0] if len(vals) == 1 else 0
    return 1 if 1 in vals else (0 if 0 in vals else -1)


# ---------------------------------------------------------------------------
# Generation


def yelp_id(*parts):
    h = hashlib.sha256(('/'.join((SEED,) + parts)).encode()).digest()
    return base64.urlsafe_b64encode(h).decode()[:22]


def timestamp(rng, year, lo_year=None):
    y = year if lo_year is None else rng.randint(lo_year, year)
    return '%04d-%02d-%02d %02d:%02d:%02d' % (
        y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
        rng.randint(0, 59), rng.randint(0, 59))


def compose(rng, cafe, stars):
    sent = 'pos' if stars >= 4 else ('mix' if stars == 3 else 'neg')
    notes = cafe['notes']
    if sent == 'pos':
        own = rng.sample(notes['pos'], rng.randint(2, len(notes['pos'])))
    elif sent == 'mix':
        own = [rng.choice(notes['mix'])] + rng.sample(notes['pos'], rng.randint(1, 2))
        if rng.random() < 0.5:
            own.append(rng.choice(notes['neg']))
    else:
        own = rng.sample(notes['neg'], rng.randint(1, 2)) + [rng.choice(notes['mix'])]
    fill = rng.sample(FILL[sent], rng.randint(1, 3))
    middle = own + fill
    rng.shuffle(middle)
    parts = []
    if rng.random() < 0.85:
        parts.append(rng.choice(OPEN[sent]))
    parts += middle
    if rng.random() < 0.8:
        parts.append(rng.choice(CLOSE[sent]))
    text = ' '.join(parts)
    while len(text) < 200:
        text += ' ' + rng.choice([f for f in FILL[sent] if f not in text])
    return text


def make_user(rng, flag, year):
    if flag == 'h':
        avg = rng.uniform(2.3, 3.45)
    elif flag == 'g':
        avg = rng.uniform(4.5, 5.0)
    else:
        avg = rng.uniform(3.5, 4.45)
    return {'review_count': rng.randint(3, 640),
            'average_stars': round(avg, 2),
            'yelping_since': timestamp(rng, year - 1, lo_year=2008)}


# The votes a generated review draws (useful, funny, cool).
VOTES = ([0, 0, 0, 1, 1, 2, 3, 5], [0, 0, 0, 0, 1, 2], [0, 0, 0, 1, 1, 4])


def review_record(rng, rid, bid, uid, stars, text, year, flag, votes):
    """A review as reviews.jsonl has it; draws its date, votes and user
    from @rng, in that order."""
    useful, funny, cool = votes
    return {
        'review_id': rid,
        'business_id': bid,
        'user_id': uid,
        'stars': float(stars),
        'text': text,
        'date': timestamp(rng, year),
        'useful': rng.choice(useful),
        'funny': rng.choice(funny),
        'cool': rng.choice(cool),
        'user': make_user(rng, flag, year),
    }


def cache_judgement(cache, rid, bid, aspect, judgement, name, note):
    """Records the judgement of review @rid on @aspect in judgement_cache."""
    cache[rid + ':' + aspect] = {
        'review_id': rid, 'business_id': bid, 'aspect': aspect,
        'judgement': judgement, 'note': '%s: %s' % (name, note)}


def item_record(bid, name, address, town, state, postal, lat, lon, reviews,
                is_open, attributes, categories, hours):
    """An item as restaurants.jsonl (items.jsonl) has it; its stars are its
    reviews' mean to the half star (4.0 without reviews)."""
    mean = sum(r['stars'] for r in reviews) / len(reviews) if reviews else 4.0
    return {
        'business_id': bid, 'name': name,
        'address': address, 'city': town, 'state': state,
        'postal_code': postal, 'latitude': lat,
        'longitude': lon, 'stars': round(mean * 2) / 2,
        'review_count': len(reviews), 'is_open': is_open,
        'attributes': attributes, 'categories': categories,
        'hours': hours,
    }


def eval_context(items, fg, cache, per_item):
    """The evaluation context (the view of §2 of the rules); @per_item:
    each item's (reviews, reviewer names)."""
    views = []
    for r in items:
        v = dict(r)
        v['attributes'] = {k: pass_a(x) for k, x in r['attributes'].items()}
        v['categories'] = [c.strip() for c in r['categories'].split(',') if c.strip()]
        views.append(v)
    return {'views': views, 'fg': fg, 'cache': cache,
            'reviews': [rv for rv, _ in per_item],
            'names': [nm for _, nm in per_item]}


def match_status(structure, ctx, n_items, gold):
    """The groundtruth status of a request whose gold is item @gold, the
    items it matches and its verdict on each item."""
    results = [evaluate(structure, ctx, i) for i in range(n_items)]
    matches = [i for i, v in enumerate(results) if v == 1]
    if matches == [gold]:
        status = 'ok'
    elif not matches:
        status = 'no_match'
    elif len(matches) == 1:
        status = 'gold_not_match'
    else:
        status = 'multi_match' if gold in matches else 'multi_match_no_gold'
    return status, matches, results


def build():
    fg = friend_graph()
    pool = sorted(n for n in fg if n not in RESERVED_NAMES) + OTHER_NAMES

    restaurants, per_cafe_reviews, assignments, cache = [], [], {}, {}
    for i, cafe in enumerate(CAFES):
        bid = yelp_id('business', cafe['key'])
        reviews, names = [], []
        for k, spec in enumerate(cafe['reviews']):
            rng = random.Random('%s/%s/%d' % (SEED, cafe['key'], k))
            if isinstance(spec, dict):
                stars, year, flag, name = spec['stars'], spec['year'], spec['user'], spec['name']
                text = spec['text']
            else:
                fields = spec.split()
                stars, year = int(fields[0]), int(fields[1])
                name = next((f[1:] for f in fields[2:] if f.startswith('@')), None)
                flag = next((f for f in fields[2:] if f in ('h', 'g')), None)
                text = compose(rng, cafe, stars)
            if name is None:
                name = rng.choice(pool)
            rid = yelp_id('review', cafe['key'], str(k))
            reviews.append(review_record(rng, rid, bid, yelp_id('user', cafe['key'], str(k)),
                                         stars, text, year, flag, VOTES))
            names.append(name)
            if isinstance(spec, dict):
                for aspect, (j, note) in spec['judge'].items():
                    cache_judgement(cache, rid, bid, aspect, j, name, note)
        if reviews:
            rng = random.Random('%s/%s/friends' % (SEED, cafe['key']))
            # The per-record friend lists are decoys, as in the original data:
            # evaluation reads friend_graph only.
            assignments[str(i)] = [
                {'review_idx': k, 'name': n,
                 'friends': sorted(rng.sample(pool, rng.randint(3, 7)))}
                for k, n in enumerate(names)]
        restaurants.append(item_record(bid, cafe['name'], cafe['address'], TOWN, STATE,
                                       cafe['postal'], cafe['lat'], cafe['lon'], reviews,
                                       cafe['is_open'], cafe['attributes'], cafe['categories'],
                                       cafe['hours']))
        per_cafe_reviews.append((reviews, names))

    ctx = eval_context(restaurants, fg, cache, per_cafe_reviews)
    keys = [c['key'] for c in CAFES]
    requests, truth, problems, verdicts = [], [], [], []
    for n, (group, scenario, gold_key, text, structure) in enumerate(REQUESTS, 1):
        rid = 'R%02d' % n
        gold = keys.index(gold_key)
        status, matches, results = match_status(structure, ctx, len(CAFES), gold)
        if status != 'ok':
            problems.append('%s: %s (matches %s, gold %s)' % (
                rid, status, [keys[i] for i in matches], gold_key))
        requests.append({
            'id': rid, 'group': group, 'scenario': scenario, 'text': text,
            'shorthand': shorthand(structure), 'structure': structure,
            'gold_restaurant': restaurants[gold]['business_id'],
        })
        verdicts.append((rid, results))
        truth.append({'request_id': rid,
                      'gold_restaurant': restaurants[gold]['business_id'],
                      'gold_idx': gold, 'status': status})

    # Reviews are grouped by business, but not in restaurant order.
    order = list(range(len(CAFES)))
    random.Random(SEED + '/order').shuffle(order)
    all_reviews = [r for i in order for r in per_cafe_reviews[i][0]]

    for r in all_reviews:
        if not 200 <= len(r['text']) <= 800:
            problems.append('review %s: text length %d' % (r['review_id'], len(r['text'])))

    return {
        'restaurants': restaurants, 'reviews': all_reviews,
        'requests': requests, 'groundtruth': truth,
        'user_mapping': {'friend_graph': fg, 'review_assignments': assignments},
        'judgement_cache': cache, 'problems': problems, 'verdicts': verdicts,
    }


def shorthand(node):
    if 'op' in node:
        return '%s(%s)' % (node['op'], ', '.join(shorthand(c) for c in node['args']))
    ev = node['evidence']
    sf = ev.get('social_filter')
    if ev.get('kind') == 'review_sentiment':
        return "%dHOP(%r, '%s')" % (sf['hops'], sf['friends'], ev['topic'])
    if ev.get('kind') == 'social_rating':
        return '%dHOP_STARS(%r)' % (sf['hops'], sf['friends'])
    if ev.get('kind') == 'review_text' and sf:
        return "%dHOP(%r, '%s')" % (sf['hops'], sf['friends'], ev['pattern'])
    return node['aspect']


def jsonl(rows):
    return ''.join(json.dumps(r) + '\n' for r in rows)


def readme(d):
    groups = sorted({r['group'] for r in d['requests']})
    gold = sorted({t['gold_idx'] for t in d['groundtruth']})
    n_with = sum(1 for v in d['user_mapping']['review_assignments'].values() if v)
    kinds = {}

    def walk(node):
        if 'op' in node:
            for c in node['args']:
                walk(c)
        else:
            k = node['evidence'].get('kind', 'item_meta')
            kinds[k] = kinds.get(k, 0) + 1
    for r in d['requests']:
        walk(r['structure'])
    judgements = {}
    for e in d['judgement_cache'].values():
        judgements[e['judgement']] = judgements.get(e['judgement'], 0) + 1

    lines = [
        '# demo benchmark',
        '',
        'A small benchmark in the same format as the philly_cafes benchmark, made',
        'for tests, examples and first experiments. **Everything here is fictional',
        'and was written by the anot project**: the %d cafes of the invented town' % len(d['restaurants']),
        'of %s, their addresses, the reviews, the reviewer names and the' % TOWN,
        'judgements. No Yelp data is included. The files are licensed like the rest',
        'of anot (LGPL-2.1-or-later).',
        '',
        'Do not edit these files by hand: they are generated by',
        '`tools/make-demo-data.py`, which also checks that every request singles',
        'out exactly its gold cafe. Change the script and run it again;',
        '`tools/make-demo-data.py --check` fails if the files are stale. The',
        'format and the evaluation rules are described in',
        '[docs/dataset-format.md](../../docs/dataset-format.md); validate the data',
        'with `anot-run validate --data data/demo`.',
        '',
        '## Files',
        '',
        '| file | content |',
        '|---|---|',
        '| `restaurants.jsonl` | %d cafes, one JSON object a line; the line number is the item index |' % len(d['restaurants']),
        '| `reviews.jsonl` | %d reviews of %d cafes, grouped by cafe (not in item order) |' % (len(d['reviews']), n_with),
        '| `requests.jsonl` | %d requests (R01-R%02d) in %d groups (%s) |' % (len(d['requests']), len(d['requests']), len(groups), ', '.join(groups)),
        '| `groundtruth.jsonl` | the gold cafe of each request; all statuses `ok` |',
        '| `user_mapping.json` | `friend_graph` (%d names) and `review_assignments` (a reviewer name for every review) |' % len(d['user_mapping']['friend_graph']),
        '| `judgement_cache.json` | %d cached review judgements (%s) |' % (len(d['judgement_cache']), ', '.join('%s %d' % kv for kv in sorted(judgements.items()))),
        '',
        '## What it exercises',
        '',
        '* Leaf kinds: %s.' % ', '.join('`%s` %d' % kv for kv in sorted(kinds.items())),
        '* Gold answers fall on %d different cafes.' % len(gold),
        '* Yelp attribute encodings and their normalisation quirks: `u\'none\'`',
        '  (null) next to `\'none\'` (the string none), `"None"`, Python dict',
        '  literals with and without `u\'` keys and with `None` values, a',
        '  `very_loud` noise level that a `loud` pattern matches as a substring.',
        '* Opening hours past midnight (`"5:0-1:0"`) and a required range across',
        '  midnight (`"22:0-1:0"`, which the rules do not adjust).',
        '* A cafe without reviews (Heron Hall Gallery Café), for which plain',
        '  `review_text` gives unknown.',
        '* Positive judgements on reviews that never spell out the aspect (so',
        '  text matching alone cannot reproduce the gold), negative and neutral',
        '  mentions at other cafes, and `review_sentiment` requiring more',
        '  positive than negative judgements.',
        '* A one-way friend-graph edge (Rhea lists Ada, Ada does not list Rhea)',
        '  on which the gold of a `social_rating` request depends; the',
        '  per-record `friends` lists in `review_assignments` are decoys.',
        '',
    ]
    return '\n'.join(lines)


def render(d):
    return {
        'restaurants.jsonl': jsonl(d['restaurants']),
        'reviews.jsonl': jsonl(d['reviews']),
        'requests.jsonl': jsonl(d['requests']),
        'groundtruth.jsonl': jsonl(d['groundtruth']),
        'user_mapping.json': json.dumps(d['user_mapping'], indent=2) + '\n',
        'judgement_cache.json': json.dumps(d['judgement_cache'], indent=2) + '\n',
        'README.md': readme(d),
    }


def check_files(files, out, prog):
    """Exit status of --check: 1 (naming them) if files differ from disk."""
    stale = []
    for name, content in files.items():
        try:
            with open(os.path.join(out, name), encoding='utf-8') as f:
                if f.read() != content:
                    stale.append(name)
        except FileNotFoundError:
            stale.append(name)
    for name in stale:
        print('%s: %s is out of date' % (prog, name), file=sys.stderr)
    return 1 if stale else 0


def write_files(files, out):
    os.makedirs(out, exist_ok=True)
    for name, content in files.items():
        with open(os.path.join(out, name), 'w', encoding='utf-8', newline='\n') as f:
            f.write(content)


def arg_parser(description, name):
    """The options of a bundled benchmark's generator: --out (data/@name by
    default) and --check."""
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument('--out', default=os.path.join(here, '..', 'data', name),
                    help='output directory (default: data/%s)' % name)
    ap.add_argument('--check', action='store_true',
                    help='compare with the files on disk instead of writing')
    return ap


def emit(prog, d, render, args, what):
    """Writes (or with --check compares) the files @render makes of @d,
    unless @d has problems; the exit status.  @what: what was written."""
    if d['problems']:
        for p in d['problems']:
            print('%s: %s' % (prog, p), file=sys.stderr)
        return 1
    files = render(d)
    if args.check:
        return check_files(files, args.out, prog)
    write_files(files, args.out)
    print('%s: wrote %s to %s' % (prog, what, args.out))
    return 0


def main():
    ap = arg_parser('Write the demo benchmark.', 'demo')
    ap.add_argument('--verbose', action='store_true',
                    help='print every request with its per-cafe results')
    args = ap.parse_args()

    d = build()
    if args.verbose:
        for rid, results in d['verdicts']:
            print('%s  %s  true=%d unknown=%d false=%d' % (
                rid, ''.join({1: '+', 0: '?', -1: '.'}[v] for v in results),
                results.count(1), results.count(0), results.count(-1)))
    return emit('make-demo-data', d, render, args, '%d cafes, %d reviews, %d requests' % (
        len(d['restaurants']), len(d['reviews']), len(d['requests'])))


if __name__ == '__main__':
    sys.exit(main())
