#!/usr/bin/env python3
# make-hotels-data.py: writes data/hotels/, a small benchmark of hotels
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The second bundled benchmark: another domain than the demo's cafes, so
# that every method and attack is exercised on items that are not
# restaurants (meta.json's "domain"), on items.jsonl and gold_item, and on
# sequential review ids (rv000, rv001, ...) as a hand-made benchmark has.
# The hotels, reviews and requests are tables below; every request is
# evaluated with the demo generator's Python version of the rules while
# writing, and nothing is written unless every request is ok.
#
#     tools/make-hotels-data.py            # writes data/hotels/
#     tools/make-hotels-data.py --check    # exits 1 if data/hotels/ is stale
#
# groundtruth.jsonl is not written here: it is what
# `anot-run validate --data data/hotels --write-groundtruth` writes (the
# test suite checks it agrees).

import importlib.util
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('make_demo_data',
                                               os.path.join(HERE, 'make-demo-data.py'))
demo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(demo)

# The rules and request helpers are the demo's: one Python version of them.
from_demo = ('AND', 'attr', 'cats', 'hours', 'leaf', 'review_text', 'sentiment',
             'social_rating', 'group_rating', 'week', 'shorthand', 'jsonl',
             'review_record', 'cache_judgement', 'item_record', 'eval_context',
             'match_status')
globals().update({name: getattr(demo, name) for name in from_demo})

SEED = 'anot-hotels-1'
TOWN, STATE = 'Saltmarsh Bay', 'SB'

DOMAIN = {
    'item': 'hotel',
    'items': 'hotels',
    'attributes': {
        'Pool': 'has a swimming pool',
        'PetsAllowed': 'guests may bring pets',
        'FreeBreakfast': 'breakfast is included in the room rate',
        'Parking': 'on-site parking for guests',
        'FreeWiFi': 'free wifi in the rooms',
        'Spa': 'has a spa',
        'AirportShuttle': 'runs a shuttle to the airport',
        'PriceRange': 'price level from 1 (budget) to 4 (luxury)',
    },
}

FRIEND_EDGES = [
    ('Aiko', 'Bram'), ('Bram', 'Cleo'), ('Cleo', 'Dov'), ('Dov', 'Edda'),
    ('Edda', 'Fitz'), ('Fitz', 'Gail'), ('Gail', 'Hal'), ('Hal', 'Aiko'),
]
# Reviewers outside the friend graph.
OTHER_NAMES = ['Lior', 'Mina', 'Noor', 'Otto', 'Pia', 'Quinn', 'Rafe', 'Sana',
               'Tove', 'Uri', 'Vik', 'Wren']

POS = ["The room was spotless and the bed was wonderfully comfortable.",
       "Check-in took two minutes and the front desk staff were lovely.",
       "We slept soundly: the windows keep the street noise out.",
       "The bathroom was bright, with strong water pressure and thick towels.",
       "Housekeeping was quick and discreet every single day.",
       "The location is handy for the harbour and the old town.",
       "Great value for what we paid, and we would stay again."]
NEG = ["The room smelled of damp and the carpet had seen better days.",
       "Check-in took forty minutes and nobody apologised.",
       "Paper-thin walls: we heard every door in the corridor.",
       "The shower ran cold twice during our stay.",
       "Housekeeping forgot our room two days in a row.",
       "Overpriced for a tired room with a view of the car park."]

# (key, name, categories, hours, attributes, reviews)
# A review is (stars, year, name or None, extra sentence or None,
# {aspect: judgement} for the judgement cache).
HOTELS = [
    ('harbourlight', 'Harbourlight Hotel', 'Hotels, Hotels & Travel',
     week('0:0-24:0'),
     dict(Pool='True', PetsAllowed='False', FreeBreakfast='True', Parking='True',
          FreeWiFi='True', Spa='True', AirportShuttle='True', PriceRange='4'),
     [(5, 2022, 'Aiko', "The rooftop pool at sunset was the highlight of the trip.",
       {'rooftop pool': 'positive'}),
      (4, 2021, None, None, {}), (5, 2023, None, None, {}), (4, 2020, None, None, {})]),
    ('dunesinn', 'Dunes Inn', 'Hotels, Bed & Breakfast',
     week('7:0-23:0'),
     dict(Pool='False', PetsAllowed='True', FreeBreakfast='True', Parking='True',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='2'),
     [(5, 2022, None, "Our dog was welcomed with a bowl of water and a biscuit.",
       {'dog friendly': 'positive'}),
      (4, 2021, None, None, {}), (3, 2019, None, None, {})]),
    ('quaysidelodge', 'Quayside Lodge', 'Hotels, Hotels & Travel',
     week('6:0-22:0'),
     dict(Pool='False', PetsAllowed='True', FreeBreakfast='False', Parking='False',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='1'),
     [(4, 2020, None, None, {}), (2, 2018, None, None, {}), (4, 2022, None, None, {})]),
    ('saltandpine', 'Salt & Pine Resort', 'Resorts, Hotels, Day Spas',
     week('0:0-24:0'),
     dict(Pool='True', PetsAllowed='False', FreeBreakfast='False', Parking='True',
          FreeWiFi='False', Spa='True', AirportShuttle='False', PriceRange='4'),
     [(5, 2021, None, "The hot stone massage at the spa was worth every penny.",
       {'massage': 'positive'}),
      (4, 2022, 'Cleo', None, {}), (5, 2020, None, None, {})]),
    ('beaconhostel', 'Beacon Hostel', 'Hostels, Hotels & Travel',
     week('8:0-20:0'),
     dict(Pool='False', PetsAllowed='False', FreeBreakfast='True', Parking='False',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='1'),
     [(4, 2022, None, "The shared kitchen is clean and the bunk curtains give real privacy.",
       {'shared kitchen': 'positive'}),
      (3, 2021, None, None, {}), (4, 2019, None, None, {})]),
    ('airportexpress', 'Gull Airport Hotel', 'Hotels, Airport Shuttles',
     week('0:0-24:0'),
     dict(Pool='False', PetsAllowed='False', FreeBreakfast='False', Parking='True',
          FreeWiFi='True', Spa='False', AirportShuttle='True', PriceRange='2'),
     [(4, 2023, None, "The shuttle left every twenty minutes, even at 4am.",
       {'shuttle': 'positive'}),
      (3, 2022, 'Dov', None, {}), (4, 2021, None, None, {})]),
    ('marinersrest', "Mariner's Rest", 'Bed & Breakfast, Hotels',
     week('7:0-21:0', Sunday='9:0-18:0'),
     dict(Pool='False', PetsAllowed='False', FreeBreakfast='True', Parking='True',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='2'),
     [(5, 2022, 'Bram', "The breakfast of smoked fish and soda bread was superb.",
       {'breakfast': 'positive'}),
      (4, 2021, None, None, {}), (5, 2020, None, None, {})]),
    ('cliffhouse', 'Cliff House Hotel', 'Hotels, Hotels & Travel',
     week('7:0-23:0'),
     dict(Pool='True', PetsAllowed='True', FreeBreakfast='False', Parking='True',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='3'),
     [(2, 2021, None, "The breakfast was a sad buffet of cold toast.",
       {'breakfast': 'negative'}),
      (3, 2022, None, None, {}), (4, 2019, None, None, {})]),
    ('tidewaterinn', 'Tidewater Inn', 'Hotels, Hotels & Travel',
     week('6:0-24:0'),
     dict(Pool='True', PetsAllowed='False', FreeBreakfast='True', Parking='False',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='3'),
     [(4, 2018, None, None, {}), (2, 2017, None, None, {}), (3, 2016, None, None, {}),
      (5, 2023, 'Edda', None, {})]),
    ('lighthousesuites', 'Lighthouse Suites', 'Hotels, Vacation Rentals',
     week('9:0-19:0'),
     dict(Pool='False', PetsAllowed='False', FreeBreakfast='False', Parking='True',
          FreeWiFi='True', Spa='False', AirportShuttle='False', PriceRange='3'),
     [(5, 2023, None, None, {}), (5, 2023, None, None, {}), (5, 2022, None, None, {})]),
    ('anchorgrand', 'Anchor Grand', 'Hotels, Venues & Event Spaces',
     week('0:0-24:0'),
     dict(Pool='True', PetsAllowed='False', FreeBreakfast='False', Parking='True',
          FreeWiFi='False', Spa='False', AirportShuttle='True', PriceRange='3'),
     [(3, 2020, None, None, {}), (4, 2021, 'Fitz', None, {}), (3, 2022, None, None, {})]),
    ('pebblemotel', 'Pebble Motel', 'Motels, Hotels & Travel',
     week('7:0-23:0'),
     dict(Pool='True', PetsAllowed='True', FreeBreakfast='False', Parking='True',
          FreeWiFi='False', Spa='False', AirportShuttle='False', PriceRange='1'),
     [(2, 2019, None, None, {}), (3, 2020, None, None, {}), (2, 2021, None, None, {}),
      (3, 2022, None, None, {})]),
]

# (group, scenario, gold hotel key, text, structure)
REQUESTS = [
    ('G01', 'Business Trip', 'airportexpress',
     "Landing late for a conference: I need a hotel with an airport shuttle, "
     "free wifi in the room, and a mid-range price.",
     AND(leaf('airport_shuttle', attr('AirportShuttle', true='True')),
         leaf('free_wifi', attr('FreeWiFi', true='True')),
         leaf('mid_price', attr('PriceRange', true='2')))),
    ('G01', 'Dog Owners', 'dunesinn',
     "We travel with our dog and want breakfast included, where other guests "
     "say the place is dog friendly.",
     AND(leaf('pets', attr('PetsAllowed', true='True')),
         leaf('breakfast_included', attr('FreeBreakfast', true='True')),
         leaf('dog_friendly', review_text('dog friendly')))),
    ('G02', 'Spa Weekend', 'saltandpine',
     "A spa weekend: a resort with a pool where reviewers rave about the massage.",
     AND(leaf('spa', attr('Spa', true='True')),
         leaf('cat_resorts', cats(contains='Resorts')),
         leaf('massage', review_text('massage')))),
    ('G03', 'Red-eye Arrival', 'harbourlight',
     "My flight lands at 3am on a Tuesday, so the front desk must be open "
     "between 2 and 4 in the morning; I'd like a spa and a pool too, and "
     "breakfast included.",
     AND(leaf('tuesday_night', hours('Tuesday', '2:0-4:0')),
         leaf('spa', attr('Spa', true='True')),
         leaf('breakfast_included', attr('FreeBreakfast', true='True')),
         leaf('pool', attr('Pool', true='True')))),
    ('G03', 'Budget Backpacker', 'beaconhostel',
     "Cheapest bed in town with breakfast, and a desk open on Saturday "
     "between 9am and 7pm so I can check in.",
     AND(leaf('saturday_day', hours('Saturday', '9:0-19:0')),
         leaf('budget', attr('PriceRange', true='1')),
         leaf('breakfast_included', attr('FreeBreakfast', true='True')))),
    ('G04', 'Breakfast Lover', 'marinersrest',
     "A bed and breakfast where my friend Bram's circle loved the breakfast, "
     "with parking for the car.",
     AND(leaf('breakfast_praised', sentiment('breakfast', ['Bram'], 1)),
         leaf('parking', attr('Parking', true='True')),
         leaf('cat_bnb', cats(contains='Bed & Breakfast')))),
    ('G04', 'Trusted Friend', 'anchorgrand',
     "Somewhere Gail or her friends rated well, with an airport shuttle.",
     AND(leaf('friend_rating', social_rating(['Gail'], 1)),
         leaf('airport_shuttle', attr('AirportShuttle', true='True')))),
    ('G05', 'Recent Praise', 'lighthousesuites',
     "I only trust recent reviews: since 2022 guests should rate it at least "
     "4.5 on average. It needs parking; no pool and no breakfast, I eat out.",
     AND(leaf('recent_high', group_rating('recent', 'date', 'gte', '2022-01-01',
                                          'avg_stars', 4.5, 'gte')),
         leaf('parking', attr('Parking', true='True')),
         leaf('no_pool', attr('Pool', true='False')),
         leaf('no_breakfast', attr('FreeBreakfast', true='False')))),
]


def compose(rng, stars, extra):
    pool = POS if stars >= 4 else (NEG if stars <= 2 else POS[:3] + NEG[:3])
    parts = rng.sample(pool, 3)
    if extra:
        parts.insert(rng.randint(0, len(parts)), extra)
    return ' '.join(parts)


# The votes a review draws (useful, funny, cool).
VOTES = ([0, 0, 1, 2, 3], [0, 0, 1], [0, 1, 2])


def build():
    fg = demo.friend_graph(FRIEND_EDGES, ())
    items, reviews, assignments, cache, per_item = [], [], {}, {}, []
    n = 0
    for i, (key, name, categories, hrs, attributes, specs) in enumerate(HOTELS):
        bid = 'ht%02d' % i
        mine, names = [], []
        for k, (stars, year, who, extra, judge) in enumerate(specs):
            rng = random.Random('%s/%s/%d' % (SEED, key, k))
            rid = 'rv%03d' % n
            n += 1
            who = who or rng.choice(OTHER_NAMES)
            text = compose(rng, stars, extra)
            mine.append(review_record(rng, rid, bid, 'us%03d' % (n - 1), stars, text, year,
                                      None, VOTES))
            names.append(who)
            for aspect, j in judge.items():
                cache_judgement(cache, rid, bid, aspect, j, who, extra)
        assignments[str(i)] = [{'review_idx': k, 'name': w, 'friends': sorted(fg.get(w, []))}
                               for k, w in enumerate(names)]
        reviews += mine
        per_item.append((mine, names))
        items.append(item_record(bid, name, '%d Shore Road' % (10 + 7 * i), TOWN, STATE,
                                 '07%03d' % (100 + i), round(41.5 + 0.01 * i, 5),
                                 round(-70.2 - 0.01 * i, 5), mine, 1, attributes, categories,
                                 hrs))

    ctx = eval_context(items, fg, cache, per_item)
    keys = [h[0] for h in HOTELS]
    requests, problems = [], []
    for n_req, (group, scenario, gold_key, text, structure) in enumerate(REQUESTS, 1):
        rid = 'R%02d' % n_req
        gold = keys.index(gold_key)
        status, matches, _ = match_status(structure, ctx, len(items), gold)
        if status != 'ok':
            problems.append('%s: matches %s, gold %s' % (rid, [keys[i] for i in matches], gold_key))
        requests.append({'id': rid, 'group': group, 'scenario': scenario, 'text': text,
                         'shorthand': shorthand(structure), 'structure': structure,
                         'gold_item': items[gold]['business_id']})
    return {'items': items, 'reviews': reviews, 'requests': requests, 'problems': problems,
            'user_mapping': {'friend_graph': fg, 'review_assignments': assignments},
            'judgement_cache': cache}


README = """# hotels: a second bundled benchmark

%d hotels of the invented town of %s, %d reviews (ids `rv000`...), %d
requests. Written by `tools/make-hotels-data.py`; do not edit by hand.
`meta.json` declares the domain (hotels, with an attribute glossary), the
items are in `items.jsonl` and the requests name their gold in
`gold_item`. Hours include `"0:0-24:0"` (a 24-hour front desk).
`groundtruth.jsonl` is written by
`anot-run validate --data data/hotels --write-groundtruth`.

It exists so that every method and attack is tested on a domain other
than restaurants; see docs/dataset-format.md §11.
"""


def render(d):
    return {
        'meta.json': json.dumps({'domain': DOMAIN}, indent=2) + '\n',
        'items.jsonl': jsonl(d['items']),
        'reviews.jsonl': jsonl(d['reviews']),
        'requests.jsonl': jsonl(d['requests']),
        'user_mapping.json': json.dumps(d['user_mapping'], indent=2) + '\n',
        'judgement_cache.json': json.dumps(d['judgement_cache'], indent=2) + '\n',
        'README.md': README % (len(d['items']), TOWN, len(d['reviews']), len(d['requests'])),
    }


def main():
    args = demo.arg_parser('Write the hotels benchmark.', 'hotels').parse_args()
    d = build()
    return demo.emit('make-hotels-data', d, render, args, '%d hotels, %d reviews, %d requests' % (
        len(d['items']), len(d['reviews']), len(d['requests'])))

if __name__ == '__main__':
    sys.exit(main())
