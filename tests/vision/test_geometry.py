from __future__ import annotations

import numpy as np

from companion.vision.geometry import (
    corners_homography,
    homography_corners,
    load_geometry,
    project,
    rotate_corners,
    space_grid,
)


def test_every_route_has_its_spaces() -> None:
    g = load_geometry()
    assert len(g.route_ids) == 101
    assert g.n_spaces == 300
    for rid in g.route_ids:
        assert len(g.spaces[rid]) == g.routes[rid].length, rid
    assert len(g.city_ids) == 47
    assert set(g.cities) == set(g.city_ids)


def test_measured_amsterdam_bruxelles_sits_between_its_cities() -> None:
    g = load_geometry()
    (sp,) = g.spaces["amsterdam-bruxelles"]
    a, b = g.cities["amsterdam"], g.cities["bruxelles"]
    mid = np.array([(a.u + b.u) / 2, (a.v + b.v) / 2])
    assert np.hypot(*(np.array([sp.u, sp.v]) - mid)) < 0.01
    # its long axis points from one city to the other (within 15 degrees)
    d = np.array([(a.u - b.u) * g.aspect, a.v - b.v])
    ang = np.degrees(np.arctan2(d[1], d[0])) % 180
    assert min(abs(ang - sp.angle % 180), 180 - abs(ang - sp.angle % 180)) < 15


def test_space_grid_stays_inside_the_board_and_box() -> None:
    g = load_geometry()
    grid = space_grid(g, 8, 4)
    assert grid.shape == (300, 4, 8, 2)
    assert grid.min() > 0.0 and grid.max() < 1.0
    # every grid's centre is its space's centre
    boxes = g.space_boxes()
    centre = grid.mean(axis=(1, 2))
    assert np.allclose(centre, [[b.u, b.v] for b in boxes], atol=1e-9)


def test_homography_round_trip_and_turns() -> None:
    corners = np.array([[100.0, 50.0], [900.0, 80.0], [880.0, 620.0], [120.0, 600.0]])
    h = corners_homography(corners)
    assert np.allclose(homography_corners(h), corners, atol=1e-6)
    assert np.allclose(project(h, np.array([[0.0, 0.0], [1.0, 1.0]])), corners[[0, 2]])
    turned = rotate_corners(corners, 2)
    assert np.allclose(turned[0], corners[2]) and np.allclose(turned[2], corners[0])
