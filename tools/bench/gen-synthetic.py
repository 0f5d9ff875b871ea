#!/usr/bin/env python3
# gen-synthetic.py: a large synthetic dataset for the loader benchmark
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Writes a dataset directory in the benchmark format (docs/dataset-format.md)
# with many items and reviews, to measure how fast anot_dataset_load() reads
# and how much memory the loaded dataset takes. The text is random words, the
# attributes random Yelp-encoded values; only the requests are meaningful:
# each one singles out its gold item under the evaluation rules, so
# `anot-run validate` reports them all ok.
#
#     gen-synthetic.py --out /tmp/synthetic                  # 100k items, 1M reviews
#     gen-synthetic.py --items 10000 --reviews 100000 --out DIR
#
# Reviews are streamed to disk; memory use stays flat whatever --reviews is.
# Deterministic for a given --seed. Pure standard library.

import argparse
import base64
import json
import os
import random
import sys
import time

WORDS = """
a about after again all almost also always am an and any anything are around
as at away back bakery barista bean beans because been before behind best
better bitter bread breakfast bright brunch busy but by cafe cake came can
cappuccino chair chairs cheap chocolate city clean coffee cold come comfortable
corner counter cozy croissant crowd cup cups day decent definitely delicious
did dinner do door down drink drinks drip during early easy enough espresso
even evening every everything excellent expensive favorite few fine first
flat food for fresh friend friendly from fruit full games generous get glass
go good great had half has have he her here hot hour hours house i ice iced if
in inside into is it its just kind kitchen know large last late latte least
light like line little local long look lot lots love lunch made make many
matcha menu milk minutes more morning most much music my near need never new
next nice night no noise not nothing now oat of off often old on once one only
open or order ordered other our out outside over owner pastries pastry patio
people perfect place plenty pleasant pour price prices quick quiet rather
really recommend rich roast room rude sandwich saturday seat seating seats
service she shop should slow small smooth so some something soup spot staff
still stopped street strong sugar sunday sure sweet table tables take tasted
tea than that the their them then there they thing this though through time
to too took tried try two up us usually very visit wait waited walk wall want
warm was water way we week weekend well went were what when where which while
white wifi will window with without work worth would year yet you your
""".split()

ATTRIBUTE_VALUES = {
    'BusinessAcceptsCreditCards': ['True', 'True', 'False'],
    'BikeParking': ['True', 'False', 'None'],
    'GoodForKids': ['True', 'False', 'None'],
    'HasTV': ['True', 'False'],
    'OutdoorSeating': ['True', 'False', 'None'],
    'RestaurantsDelivery': ['True', 'False', 'None'],
    'RestaurantsReservations': ['True', 'False'],
    'RestaurantsTakeOut': ['True', 'False'],
    'DogsAllowed': ['True', 'False'],
    'HappyHour': ['True', 'False'],
    'DriveThru': ['True', 'False'],
    'WiFi': ["u'free'", "'free'", "u'no'", "'no'", "'paid'"],
    'Alcohol': ["u'none'", "'none'", "u'full_bar'", "'full_bar'",
                "u'beer_and_wine'", "'beer_and_wine'"],
    'NoiseLevel': ["u'quiet'", "'quiet'", "u'average'", "'average'",
                   "u'loud'", "u'very_loud'"],
    'RestaurantsAttire': ["u'casual'", "'casual'", "'dressy'"],
    'RestaurantsPriceRange2': ['1', '2', '3', '4'],
}
DICT_ATTRIBUTES = {
    'Ambience': ('touristy', 'hipster', 'romantic', 'divey', 'intimate',
                 'trendy', 'upscale', 'classy', 'casual'),
    'GoodForMeal': ('dessert', 'latenight', 'lunch', 'dinner', 'brunch',
                    'breakfast'),
    'BusinessParking': ('garage', 'street', 'validated', 'lot', 'valet'),
}
CATEGORIES = ['Coffee & Tea', 'Cafes', 'Food', 'Bakeries', 'Breakfast & Brunch',
              'Restaurants', 'Desserts', 'Sandwiches', 'Bubble Tea',
              'Juice Bars & Smoothies', 'Bars', 'Wine Bars', 'Vegan',
              'Bookstores', 'Ice Cream & Frozen Yogurt', 'Donuts']
DAYS = ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday',
        'Sunday')
NAME_A = ['Amber', 'Blue', 'Copper', 'Daily', 'Early', 'Fox', 'Golden',
          'Harbor', 'Iron', 'Juniper', 'Kettle', 'Lantern', 'Maple', 'North',
          'Oak', 'Pine', 'Quiet', 'Red', 'Salt', 'Tide']
NAME_B = ['Bean', 'Cup', 'Roasters', 'Cafe', 'Kitchen', 'Bakery', 'House',
          'Corner', 'Grind', 'Brew', 'Mill', 'Table']
ASPECTS = ['espresso', 'latte', 'wifi', 'pastries', 'service', 'music',
           'outdoor seating', 'matcha', 'sandwiches', 'noise']
JUDGEMENTS = ['positive', 'positive', 'negative', 'neutral']


def ident(rng):
    return base64.urlsafe_b64encode(rng.getrandbits(132).to_bytes(17, 'little')).decode()[:22]


def stamp(rng, lo, hi):
    return '%04d-%02d-%02d %02d:%02d:%02d' % (
        rng.randint(lo, hi), rng.randint(1, 12), rng.randint(1, 28),
        rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))


def text(rng, choices=random.Random.choices):
    # Mean about 600 characters: ~6.5 characters a word with the space.
    n = int(rng.triangular(30, 180, 105))
    words = choices(rng, WORDS, k=n)
    out = []
    for s in range(0, n, 13):
        sentence = words[s:s + 13]
        sentence[0] = sentence[0].capitalize()
        out.append(' '.join(sentence) + '.')
    return ' '.join(out)


def item_record(rng, idx, marker):
    attrs = {}
    for key in rng.sample(sorted(ATTRIBUTE_VALUES), rng.randint(6, len(ATTRIBUTE_VALUES))):
        attrs[key] = rng.choice(ATTRIBUTE_VALUES[key])
    for key, keys in DICT_ATTRIBUTES.items():
        if rng.random() < 0.7:
            attrs[key] = '{' + ', '.join("'%s': %s" % (k, rng.choice(('True', 'False', 'False')))
                                         for k in keys) + '}'
    cats = rng.sample(CATEGORIES, rng.randint(1, 5))
    if marker:
        cats.append(marker)
    hours = {}
    for day in DAYS:
        if rng.random() < 0.9:
            open_h = rng.randint(5, 12)
            hours[day] = '%d:%d-%d:0' % (open_h, rng.choice((0, 30)),
                                         (open_h + rng.randint(6, 16)) % 24)
    return {
        'business_id': ident(rng),
        'name': '%s %s %d' % (rng.choice(NAME_A), rng.choice(NAME_B), idx),
        'address': '%d %s Street' % (rng.randint(1, 999), rng.choice(NAME_A)),
        'city': 'Synthville', 'state': 'SY',
        'postal_code': '%05d' % rng.randint(10000, 99999),
        'latitude': round(rng.uniform(40.0, 41.0), 7),
        'longitude': round(rng.uniform(-76.0, -75.0), 7),
        'stars': rng.choice((2.5, 3.0, 3.5, 4.0, 4.5, 5.0)),
        'review_count': rng.randint(5, 2000),
        'is_open': rng.choice((0, 1, 1, 1)),
        'attributes': attrs,
        'categories': ', '.join(cats),
        'hours': hours,
    }


def review_counts(rng, items, reviews, golds):
    avg = reviews / items
    counts = [rng.randint(0, max(1, int(2 * avg))) for _ in range(items)]
    for g in golds:
        counts[g] = max(counts[g], 1)
    diff = reviews - sum(counts)
    while diff != 0:
        i = rng.randrange(items)
        if diff > 0:
            counts[i] += 1
            diff -= 1
        elif counts[i] > (1 if i in golds else 0):
            counts[i] -= 1
            diff += 1
    return counts


def build_request(n, rid, width, gold, item, gold_reviews, cache):
    """A request that only its gold item satisfies (via the marker category)
    plus a few other kinds of leaves that are true for the gold item."""
    marker = 'Synthetic Marker %s' % rid
    leaves = [{'aspect': 'marker', 'evidence': {
        'kind': 'item_meta', 'path': ['categories'], 'contains': marker}}]
    bools = [k for k, v in item['attributes'].items() if v in ('True', 'False')]
    if bools:
        k = bools[0]
        leaves.append({'aspect': k, 'evidence': {
            'kind': 'item_meta', 'path': ['attributes', k], 'true': item['attributes'][k]}})
    days = [d for d in DAYS if d in item['hours']]
    if days:
        leaves.append({'aspect': 'open_' + days[0].lower(), 'evidence': {
            'kind': 'item_meta_hours', 'path': ['hours', days[0]],
            'true': item['hours'][days[0]]}})
    aspect = 'synthetic %s' % rid.lower()
    rev = gold_reviews[0]
    cache[rev + ':' + aspect] = {'review_id': rev, 'business_id': item['business_id'],
                                 'aspect': aspect, 'judgement': 'positive',
                                 'note': 'synthetic'}
    leaves.append({'aspect': 'mentions', 'evidence': {'kind': 'review_text', 'pattern': aspect}})
    leaves.append({'aspect': 'has_reviews', 'evidence': {
        'kind': 'review_group_rating', 'group': 'all',
        'group_filter': {'field': 'date', 'operator': 'gte', 'value': '2000-01-01'},
        'metric': 'count', 'threshold': 1, 'operator': 'gte'}})
    if n % 2:
        structure = {'op': 'AND', 'args': leaves}
    else:
        # AND(marker, OR(other leaves...)): one nesting level.
        structure = {'op': 'AND', 'args': [leaves[0], {'op': 'OR', 'args': leaves[1:]}]}
    return {
        'id': rid, 'group': 'G%02d' % (n % 10 + 1), 'scenario': 'Synthetic',
        'text': 'Synthetic request %s. Looking for the %s place.' % (rid, marker.lower()),
        'shorthand': 'AND(%s)' % ', '.join(l['aspect'] for l in leaves),
        'structure': structure, 'gold_restaurant': item['business_id'],
    }


def main():
    ap = argparse.ArgumentParser(description='Write a synthetic benchmark dataset.')
    ap.add_argument('--items', type=int, default=100000)
    ap.add_argument('--reviews', type=int, default=1000000)
    ap.add_argument('--requests', type=int, default=10)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--assigned-items', type=int, default=1000,
                    help='items whose reviews get reviewer names (default 1000)')
    ap.add_argument('--judged', type=float, default=0.01,
                    help='fraction of reviews with a cached judgement (default 0.01)')
    ap.add_argument('--out', required=True, help='output directory')
    args = ap.parse_args()
    if args.items < 1 or args.reviews < 0 or args.requests < 0:
        ap.error('--items must be positive, --reviews and --requests not negative')
    if args.requests > args.items or (args.requests and args.reviews < args.requests):
        ap.error('need at least one item and one review per request')

    t0 = time.monotonic()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    width = max(2, len(str(args.requests)))
    golds = rng.sample(range(args.items), args.requests)
    gold_rid = {g: 'R%0*d' % (width, n + 1) for n, g in enumerate(golds)}
    counts = review_counts(rng, args.items, args.reviews, set(golds))

    names = ['User%04d' % i for i in range(max(50, args.assigned_items))]
    friend_graph = {}
    for i, name in enumerate(names):
        friends = [names[(i + 1) % len(names)], names[(i - 1) % len(names)]]
        friends += rng.sample(names, 2)
        friend_graph[name] = sorted(set(f for f in friends if f != name))

    # Items: streamed, keeping only the gold items for the requests.
    gold_items = {}
    business_ids = []
    with open(os.path.join(args.out, 'restaurants.jsonl'), 'w', buffering=1 << 20) as f:
        for idx in range(args.items):
            marker = 'Synthetic Marker %s' % gold_rid[idx] if idx in gold_rid else None
            item = item_record(rng, idx, marker)
            business_ids.append(item['business_id'])
            if marker:
                gold_items[idx] = item
            f.write(json.dumps(item) + '\n')

    # Reviews: grouped by item, items in a shuffled order.
    order = list(range(args.items))
    rng.shuffle(order)
    assigned = set(rng.sample(range(args.items), min(args.assigned_items, args.items)))
    assigned.update(golds)
    assignments, cache, gold_reviews = {}, {}, {}
    dumps = json.dumps
    with open(os.path.join(args.out, 'reviews.jsonl'), 'w', buffering=1 << 20) as f:
        for idx in order:
            bid = business_ids[idx]
            records = []
            for k in range(counts[idx]):
                rid = ident(rng)
                year = rng.randint(2008, 2023)
                f.write(dumps({
                    'review_id': rid, 'business_id': bid, 'user_id': ident(rng),
                    'stars': float(rng.randint(1, 5)), 'text': text(rng),
                    'date': stamp(rng, year, year),
                    'useful': rng.randint(0, 5), 'funny': rng.randint(0, 2),
                    'cool': rng.randint(0, 3),
                    'user': {'review_count': rng.randint(1, 800),
                             'average_stars': round(rng.uniform(1.5, 5.0), 2),
                             'yelping_since': stamp(rng, 2005, year)},
                }) + '\n')
                if idx in assigned:
                    records.append({'review_idx': k, 'name': rng.choice(names),
                                    'friends': []})
                if idx in gold_rid:
                    gold_reviews.setdefault(idx, []).append(rid)
                if rng.random() < args.judged:
                    aspect = rng.choice(ASPECTS)
                    cache[rid + ':' + aspect] = {
                        'review_id': rid, 'business_id': bid, 'aspect': aspect,
                        'judgement': rng.choice(JUDGEMENTS), 'note': 'synthetic'}
            if records:
                for r in records:
                    r['friends'] = friend_graph[r['name']]
                assignments[str(idx)] = records

    requests, truth = [], []
    for n, g in enumerate(golds, 1):
        rid = gold_rid[g]
        requests.append(build_request(n, rid, width, g, gold_items[g], gold_reviews[g], cache))
        truth.append({'request_id': rid, 'gold_restaurant': business_ids[g],
                      'gold_idx': g, 'status': 'ok'})

    with open(os.path.join(args.out, 'requests.jsonl'), 'w') as f:
        f.writelines(json.dumps(r) + '\n' for r in requests)
    with open(os.path.join(args.out, 'groundtruth.jsonl'), 'w') as f:
        f.writelines(json.dumps(t) + '\n' for t in truth)
    with open(os.path.join(args.out, 'user_mapping.json'), 'w') as f:
        json.dump({'friend_graph': friend_graph, 'review_assignments': assignments}, f)
        f.write('\n')
    with open(os.path.join(args.out, 'judgement_cache.json'), 'w') as f:
        json.dump(cache, f, indent=2)
        f.write('\n')

    size = sum(os.path.getsize(os.path.join(args.out, n)) for n in os.listdir(args.out))
    print('gen-synthetic: %d items, %d reviews, %d requests, %.1f MB in %s (%.1f s)' % (
        args.items, args.reviews, len(requests), size / 1e6, args.out,
        time.monotonic() - t0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
