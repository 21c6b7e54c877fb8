from __future__ import annotations

import numpy as np

from companion.vision.geometry.geometry import (
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


def test_decimation_keeps_pixel_centres() -> None:
    """Sampling a k-times decimated picture through the adjusted homography finds the same
    place as sampling the picture itself (a horizontal ramp: value = x)."""
    import cv2

    from companion.vision.features.sample import decimate, decimated_homography

    w, h = 254, 121  # not multiples of k: the remainder is dropped
    ramp = np.tile(np.arange(w, dtype=np.uint8), (h, 1))
    img = np.ascontiguousarray(np.dstack([ramp, ramp, ramp]))
    hmat = corners_homography(np.array([[20.0, 10.0], [230.0, 15.0], [225.0, 110.0], [25, 100]]))
    pts = np.array([[0.1, 0.2], [0.5, 0.5], [0.9, 0.8], [0.3, 0.6]])
    want = project(hmat, pts)[:, 0]  # the ramp's value at those points
    for k in (3, 5):  # odd: block means of a ramp are whole values
        store: dict[int, np.ndarray] = {}
        small = decimate(img, k, store)
        assert small.shape[:2] == (h // k, w // k) and store[k] is small
        assert decimate(img, k, store) is small  # taken from the store the second time
        xy = project(decimated_homography(hmat, k), pts).astype(np.float32).reshape(1, -1, 2)
        got = cv2.remap(small, xy, None, cv2.INTER_LINEAR)[0, :, 0]  # type: ignore[call-overload]
        # only the remap output is rounded (within 0.5; a pixel-centre slip is >= 1)
        assert np.abs(got - want).max() <= 0.6, (k, got, want)
    assert decimate(img, 1) is img
