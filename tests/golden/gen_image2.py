#!/usr/bin/env python3
"""Golden cases of the image2 family: the detection ops of object-detection
graphs (NonMaxSuppression v1 and V2, NonMaxSuppressionWithOverlaps,
CombinedNonMaxSuppression), the gradients of CropAndResize
(CropAndResizeGradImage, CropAndResizeGradBoxes, also through
tf.gradients), DrawBoundingBoxes / DrawBoundingBoxesV2, ExtractGlimpse /
ExtractGlimpseV2 and AdjustContrast (v1, deprecated: a legacy GraphDef);
and TensorFlow's OpDefs and CPU kernel types of the family's ops.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_image2.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from gen_image import nms_boxes  # noqa: E402
from golden_lib import case, rng, tf1  # noqa: E402

FAMILY = "image2"
raw = tf.raw_ops

OP_NAMES = [
    "NonMaxSuppression", "NonMaxSuppressionV2",
    "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression",
    "CropAndResizeGradImage", "CropAndResizeGradBoxes",
    "DrawBoundingBoxes", "DrawBoundingBoxesV2",
    "ExtractGlimpse", "ExtractGlimpseV2", "AdjustContrast",
]


def fed(value, shape="same"):
    """A placeholder for value (its shape, or unknown shape with
    shape=None) and the feed entry."""
    value = np.asarray(value)
    ph = tf1.placeholder(tf.as_dtype(value.dtype),
                         value.shape if shape == "same" else shape)
    return ph, {ph: value}


def nms_v1_v2_cases():
    bv, sv = nms_boxes(30, 40)
    for iou in (0.0, 0.4, 0.5, 1.0):
        def build(iou=iou):
            b, f1 = fed(bv)
            s, f2 = fed(sv)
            out = raw.NonMaxSuppression(boxes=b, scores=s, max_output_size=30,
                                        iou_threshold=iou)
            return out, {**f1, **f2}
        case(FAMILY, f"nms_v1_iou{iou}", build)

    def default_iou():
        b, f1 = fed(bv)
        s, f2 = fed(sv)
        return raw.NonMaxSuppression(boxes=b, scores=s,
                                     max_output_size=5), {**f1, **f2}
    case(FAMILY, "nms_v1_default_iou_max5", default_iou)

    def neg_scores():
        b, f1 = fed(bv)
        s, f2 = fed(sv - 0.5)
        return raw.NonMaxSuppression(boxes=b, scores=s, max_output_size=30,
                                     iou_threshold=0.3), {**f1, **f2}
    case(FAMILY, "nms_v1_negative_scores", neg_scores,
         note="v1 and V2 have no score threshold: every score counts")

    def empty():
        b, f1 = fed(np.zeros((0, 4), np.float32))
        s, f2 = fed(np.zeros((0,), np.float32))
        return raw.NonMaxSuppression(boxes=b, scores=s,
                                     max_output_size=3), {**f1, **f2}
    case(FAMILY, "nms_v1_empty", empty)

    def v1_err(name, boxes, scores, max_size, iou=0.5):
        def build():
            b, f1 = fed(boxes, None)
            s, f2 = fed(scores, None)
            m, f3 = fed(np.asarray(max_size, np.int32), None)
            return raw.NonMaxSuppression(boxes=b, scores=s, max_output_size=m,
                                         iou_threshold=iou), {**f1, **f2, **f3}
        case(FAMILY, f"nms_v1_error_{name}", build)
    v1_err("iou", bv, sv, 3, iou=1.5)
    v1_err("max_size_rank", bv, sv, [3])
    v1_err("negative_max", bv, sv, -1)
    v1_err("boxes_columns", bv[:, :3], sv, 3)
    v1_err("boxes_rank", bv[0], sv, 3)
    v1_err("scores_count", bv, sv[:-1], 3)

    for tname, t, thr in [("float", np.float32, np.float32),
                          ("half", np.float16, np.float16),
                          ("half_float_threshold", np.float16, np.float32),
                          ("float_half_threshold", np.float32, np.float16)]:
        for iou in (0.3, 0.7):
            def build(t=t, thr=thr, iou=iou):
                b, f1 = fed(bv.astype(t))
                s, f2 = fed(sv.astype(t))
                i, f3 = fed(np.asarray(iou, thr))
                return raw.NonMaxSuppressionV2(
                    boxes=b, scores=s, max_output_size=20,
                    iou_threshold=i), {**f1, **f2, **f3}
            case(FAMILY, f"nms_v2_{tname}_iou{iou}", build)

    def v2_err(name, iou, max_size=3, boxes=bv):
        def build():
            b, f1 = fed(boxes, None)
            s, f2 = fed(sv)
            i, f3 = fed(np.asarray(iou, np.float32), None)
            m, f4 = fed(np.asarray(max_size, np.int32), None)
            return raw.NonMaxSuppressionV2(
                boxes=b, scores=s, max_output_size=m,
                iou_threshold=i), {**f1, **f2, **f3, **f4}
        case(FAMILY, f"nms_v2_error_{name}", build)
    v2_err("iou", -0.1)
    v2_err("iou_rank", [0.5])
    v2_err("max_size_rank", 0.5, max_size=[1, 2])
    v2_err("boxes_columns", 0.5, boxes=bv[:, :2])

    def public():
        b, f1 = fed(bv)
        s, f2 = fed(sv)
        sel = tf.image.non_max_suppression(b, s, 10, iou_threshold=0.45)
        return [sel, tf.gather(b, sel)], {**f1, **f2}
    case(FAMILY, "nms_v2_public_wrapper", public)


def overlap_matrix(n, seed):
    r = rng(seed)
    m = np.round(r.uniform(0, 1, size=(n, n)), 2).astype(np.float32)
    m = (m + m.T) / 2
    np.fill_diagonal(m, 1.0)
    return m


def nms_overlaps_cases():
    ov = overlap_matrix(12, 50)
    sc = np.round(rng(51).uniform(0, 1, size=12), 2).astype(np.float32)
    sc[3] = sc[7]
    for name, thr, st, m in [("basic", 0.5, 0.0, 12), ("strict", 0.2, 0.0, 12),
                             ("loose", 0.9, -1.0, 12),
                             ("score_threshold", 0.6, 0.4, 12),
                             ("max3", 0.5, 0.0, 3), ("max0", 0.5, 0.0, 0),
                             ("threshold_above_one", 1.5, 0.0, 12),
                             ("negative_threshold", -0.5, -10.0, 12)]:
        def build(thr=thr, st=st, m=m):
            o, f1 = fed(ov)
            s, f2 = fed(sc)
            return raw.NonMaxSuppressionWithOverlaps(
                overlaps=o, scores=s, max_output_size=m, overlap_threshold=thr,
                score_threshold=st), {**f1, **f2}
        case(FAMILY, f"nms_overlaps_{name}", build)

    def empty():
        o, f1 = fed(np.zeros((0, 0), np.float32))
        s, f2 = fed(np.zeros((0,), np.float32))
        return raw.NonMaxSuppressionWithOverlaps(
            overlaps=o, scores=s, max_output_size=4, overlap_threshold=0.5,
            score_threshold=0.0), {**f1, **f2}
    case(FAMILY, "nms_overlaps_empty", empty)

    def err(name, overlaps, scores, m=3, thr=0.5, st=0.0):
        def build():
            o, f1 = fed(overlaps, None)
            s, f2 = fed(scores, None)
            mm, f3 = fed(np.asarray(m, np.int32), None)
            t, f4 = fed(np.asarray(thr, np.float32), None)
            ss, f5 = fed(np.asarray(st, np.float32), None)
            return raw.NonMaxSuppressionWithOverlaps(
                overlaps=o, scores=s, max_output_size=mm,
                overlap_threshold=t, score_threshold=ss), {
                    **f1, **f2, **f3, **f4, **f5}
        case(FAMILY, f"nms_overlaps_error_{name}", build)
    err("not_square", ov[:, :5], sc)
    err("rank", ov[0], sc)
    err("scores_count", ov, sc[:5])
    err("negative_max", ov, sc, m=-2)
    err("threshold_rank", ov, sc, thr=[0.5])
    err("score_threshold_rank", ov, sc, st=[0.1, 0.2])


def combined_inputs(batch, n, classes, q, seed):
    r = rng(seed)
    centers = r.uniform(0.1, 0.9, size=(3, 2))
    c = centers[r.integers(0, 3, size=(batch, n, q))] + r.normal(
        0, 0.05, size=(batch, n, q, 2))
    hw = r.uniform(0.05, 0.3, size=(batch, n, q, 2))
    boxes = np.concatenate([c - hw / 2, c + hw / 2], axis=-1)
    # Some boxes stick out of [0, 1], for clip_boxes.
    boxes[:, ::5] *= 1.4
    boxes[:, 1::7] -= 0.2
    scores = np.round(r.uniform(0, 1, size=(batch, n, classes)), 2)
    return boxes.astype(np.float32), scores.astype(np.float32)


def combined_cases():
    variants = [
        ("q1", 1, dict()),
        ("q_classes", 3, dict()),
        ("pad_per_class", 1, dict(pad_per_class=True)),
        ("pad_per_class_small", 1, dict(pad_per_class=True, per_class=2)),
        ("pad_per_class_total_smaller", 3,
         dict(pad_per_class=True, per_class=5, total=4)),
        ("no_clip", 1, dict(clip_boxes=False)),
        ("no_clip_q_classes", 3, dict(clip_boxes=False, pad_per_class=True)),
        ("total_smaller", 1, dict(total=5)),
        ("total_larger", 1, dict(total=100, per_class=50)),
        ("score_threshold", 1, dict(score=0.6)),
        ("score_threshold_all_out", 1, dict(score=1.5)),
        ("negative_score_threshold", 1, dict(score=-1.0, total=60,
                                              per_class=20)),
        ("iou0", 1, dict(iou=0.0)),
        ("iou1", 3, dict(iou=1.0, total=40, per_class=30)),
    ]
    for name, q, kw in variants:
        def build(q=q, kw=kw):
            bv, sv = combined_inputs(2, 16, 3, q, 60)
            b, f1 = fed(bv)
            s, f2 = fed(sv)
            out = raw.CombinedNonMaxSuppression(
                boxes=b, scores=s,
                max_output_size_per_class=kw.get("per_class", 4),
                max_total_size=kw.get("total", 10),
                iou_threshold=kw.get("iou", 0.5),
                score_threshold=kw.get("score", 0.1),
                pad_per_class=kw.get("pad_per_class", False),
                clip_boxes=kw.get("clip_boxes", True))
            return list(out), {**f1, **f2}
        case(FAMILY, f"combined_nms_{name}", build)

    def ties():
        bv = np.array([[[[0, 0, 0.1, 0.1]], [[0.5, 0.5, 0.6, 0.6]],
                        [[0.2, 0.2, 0.3, 0.3]], [[0.7, 0.7, 0.8, 0.8]],
                        [[0.0, 0.5, 0.1, 0.6]], [[0.4, 0.0, 0.5, 0.1]]]],
                      np.float32)
        sv = np.full((1, 6, 2), 0.5, np.float32)
        sv[0, 2, 1] = 0.7
        b, f1 = fed(bv)
        s, f2 = fed(sv)
        return list(raw.CombinedNonMaxSuppression(
            boxes=b, scores=s, max_output_size_per_class=6, max_total_size=9,
            iou_threshold=0.5, score_threshold=0.0)), {**f1, **f2}
    case(FAMILY, "combined_nms_equal_scores", ties,
         note="TensorFlow's heap and std::sort order for equal scores")

    def empty_boxes():
        b, f1 = fed(np.zeros((2, 0, 1, 4), np.float32))
        s, f2 = fed(np.zeros((2, 0, 3), np.float32))
        return list(raw.CombinedNonMaxSuppression(
            boxes=b, scores=s, max_output_size_per_class=3, max_total_size=4,
            iou_threshold=0.5, score_threshold=0.0)), {**f1, **f2}
    case(FAMILY, "combined_nms_no_boxes", empty_boxes)

    def public():
        bv, sv = combined_inputs(2, 16, 4, 1, 61)
        b, f1 = fed(bv)
        s, f2 = fed(sv)
        out = tf.image.combined_non_max_suppression(
            b, s, max_output_size_per_class=3, max_total_size=8,
            iou_threshold=0.4, score_threshold=0.2)
        return list(out), {**f1, **f2}
    case(FAMILY, "combined_nms_public_wrapper", public)

    def err(name, boxes, scores, per_class=3, total=4, iou=0.5, score=0.0):
        def build():
            b, f1 = fed(boxes, None)
            s, f2 = fed(scores, None)
            pc, f3 = fed(np.asarray(per_class, np.int32), None)
            t, f4 = fed(np.asarray(total, np.int32), None)
            i, f5 = fed(np.asarray(iou, np.float32), None)
            st, f6 = fed(np.asarray(score, np.float32), None)
            return list(raw.CombinedNonMaxSuppression(
                boxes=b, scores=s, max_output_size_per_class=pc,
                max_total_size=t, iou_threshold=i, score_threshold=st)), {
                    **f1, **f2, **f3, **f4, **f5, **f6}
        case(FAMILY, f"combined_nms_error_{name}", build)
    bv, sv = combined_inputs(2, 6, 3, 1, 62)
    err("boxes_rank", bv[0], sv)
    err("scores_rank", bv, sv[0])
    err("q", np.concatenate([bv, bv], axis=2), sv)
    err("columns", bv[..., :3], sv)
    err("num_boxes", bv, sv[:, :4])
    err("batch", bv, sv[:1])
    err("per_class_zero", bv, sv, per_class=0)
    err("per_class_rank", bv, sv, per_class=[3])
    err("total_zero", bv, sv, total=0)
    err("total_rank", bv, sv, total=[4])
    err("iou", bv, sv, iou=1.1)
    err("iou_rank", bv, sv, iou=[0.5])
    err("score_rank", bv, sv, score=[0.5])


GRAD_BOXES = np.array([
    [0.1, 0.2, 0.8, 0.9],
    [0.0, 0.0, 1.0, 1.0],
    [0.9, 0.8, 0.2, 0.1],
    [-0.3, 0.5, 0.6, 1.4],
    [0.25, 0.25, 0.25, 0.75],
], np.float32)
GRAD_BOX_INDEX = np.array([0, 1, 1, 0, 1], np.int32)


def crop_grad_cases():
    r = rng(70)
    image = r.uniform(-2, 2, size=(2, 5, 6, 3)).astype(np.float32)
    for crop in ([3, 4], [1, 1], [1, 3], [4, 1]):
        grads = r.uniform(-1, 1, size=(5, crop[0], crop[1], 3)).astype(
            np.float32)
        ctag = f"{crop[0]}x{crop[1]}"
        for method in ("bilinear", "nearest"):
            for tname, t in [("float", tf.float32), ("half", tf.float16),
                             ("double", tf.float64)]:
                if tname != "float" and ctag != "3x4":
                    continue

                def build(grads=grads, method=method, t=t):
                    g, f1 = fed(grads)
                    b, f2 = fed(GRAD_BOXES)
                    return raw.CropAndResizeGradImage(
                        grads=g, boxes=b, box_ind=GRAD_BOX_INDEX,
                        image_size=[2, 5, 6, 3], T=t,
                        method=method), {**f1, **f2}
                case(FAMILY, f"crop_grad_image_{method}_{tname}_{ctag}",
                     build, rtol=1e-5, atol=1e-5)

        def build_boxes(grads=grads):
            g, f1 = fed(grads)
            im, f2 = fed(image)
            b, f3 = fed(GRAD_BOXES)
            return raw.CropAndResizeGradBoxes(
                grads=g, image=im, boxes=b,
                box_ind=GRAD_BOX_INDEX), {**f1, **f2, **f3}
        case(FAMILY, f"crop_grad_boxes_float_{ctag}", build_boxes,
             rtol=1e-4, atol=1e-4)
    grads = r.uniform(-1, 1, size=(5, 3, 4, 3)).astype(np.float32)
    for tname, dt in [("uint8", np.uint8), ("int32", np.int32),
                      ("half", np.float16), ("double", np.float64),
                      ("int64", np.int64), ("int8", np.int8),
                      ("uint16", np.uint16), ("int16", np.int16)]:
        img = np.round(np.abs(image) * 50).astype(dt)

        def build(img=img):
            g, f1 = fed(grads)
            im, f2 = fed(img)
            b, f3 = fed(GRAD_BOXES)
            return raw.CropAndResizeGradBoxes(
                grads=g, image=im, boxes=b,
                box_ind=GRAD_BOX_INDEX), {**f1, **f2, **f3}
        case(FAMILY, f"crop_grad_boxes_{tname}", build, rtol=1e-4, atol=1e-3)

    def through_gradients():
        im, f1 = fed(image)
        b, f2 = fed(GRAD_BOXES)
        crops = tf.image.crop_and_resize(im, b, GRAD_BOX_INDEX, [4, 3])
        w = tf.constant(r.uniform(-1, 1, size=(5, 4, 3, 3)).astype(np.float32))
        loss = tf.reduce_sum(crops * w)
        gi, gb = tf.gradients(loss, [im, b])
        return [crops, gi, gb], {**f1, **f2}
    case(FAMILY, "crop_and_resize_tf_gradients", through_gradients,
         rtol=1e-4, atol=1e-4,
         note="tf.gradients of tf.image.crop_and_resize w.r.t. image and "
         "boxes")

    def through_gradients_nearest():
        im, f1 = fed(image)
        b, f2 = fed(GRAD_BOXES)
        crops = tf.image.crop_and_resize(im, b, GRAD_BOX_INDEX, [3, 5],
                                         method="nearest")
        gi = tf.gradients(tf.reduce_sum(crops * crops), [im])[0]
        return [crops, gi], {**f1, **f2}
    case(FAMILY, "crop_and_resize_tf_gradients_nearest",
         through_gradients_nearest, rtol=1e-5, atol=1e-5)

    def empty():
        g, f1 = fed(np.zeros((0, 2, 2, 3), np.float32))
        b, f2 = fed(np.zeros((0, 4), np.float32))
        bi, f3 = fed(np.zeros((0,), np.int32))
        im, f4 = fed(image)
        return [raw.CropAndResizeGradImage(grads=g, boxes=b, box_ind=bi,
                                           image_size=[2, 3, 2, 3],
                                           T=tf.float32),
                raw.CropAndResizeGradBoxes(grads=g, image=im, boxes=b,
                                           box_ind=bi)], {
                    **f1, **f2, **f3, **f4}
    case(FAMILY, "crop_grad_empty_boxes", empty)

    def err_image(name, grads, boxes=GRAD_BOXES, box_ind=GRAD_BOX_INDEX,
                  size=(2, 5, 6, 3)):
        def build():
            g, f1 = fed(np.asarray(grads, np.float32), None)
            b, f2 = fed(np.asarray(boxes, np.float32), None)
            bi, f3 = fed(np.asarray(box_ind, np.int32), None)
            sz, f4 = fed(np.asarray(size, np.int32), None)
            return raw.CropAndResizeGradImage(
                grads=g, boxes=b, box_ind=bi, image_size=sz,
                T=tf.float32), {**f1, **f2, **f3, **f4}
        case(FAMILY, f"crop_grad_image_error_{name}", build)
    g = np.ones((5, 2, 2, 3), np.float32)
    err_image("grads_rank", g[0])
    err_image("grads_zero_height", np.ones((5, 0, 2, 3)))
    err_image("boxes_columns", g, boxes=GRAD_BOXES[:, :3])
    err_image("box_ind_count", g, box_ind=GRAD_BOX_INDEX[:3])
    err_image("grads_count", g[:3])
    err_image("size_rank", g, size=[[2, 5, 6, 3]])
    err_image("size_count", g, size=[2, 5, 6])
    err_image("size_zero_height", g, size=[2, 0, 6, 3])
    err_image("depth", g, size=[2, 5, 6, 4])
    err_image("box_ind_range", g, box_ind=[0, 1, 2, 0, 1])
    err_image("box_ind_negative", g, box_ind=[0, -1, 0, 0, 1])

    def err_boxes(name, grads, img=image, boxes=GRAD_BOXES,
                  box_ind=GRAD_BOX_INDEX):
        def build():
            g, f1 = fed(np.asarray(grads, np.float32), None)
            im, f2 = fed(np.asarray(img, np.float32), None)
            b, f3 = fed(np.asarray(boxes, np.float32), None)
            bi, f4 = fed(np.asarray(box_ind, np.int32), None)
            return raw.CropAndResizeGradBoxes(
                grads=g, image=im, boxes=b, box_ind=bi), {
                    **f1, **f2, **f3, **f4}
        case(FAMILY, f"crop_grad_boxes_error_{name}", build)
    err_boxes("grads_rank", g[0])
    err_boxes("image_rank", g, img=image[0])
    err_boxes("image_zero_width", g, img=np.zeros((2, 5, 0, 3)))
    err_boxes("depth", g, img=image[..., :2])
    err_boxes("boxes_rank", g, boxes=GRAD_BOXES[0])
    err_boxes("grads_count", g[:2])
    err_boxes("box_ind_range", g, box_ind=[0, 1, 5, 0, 1])


def draw_cases():
    r = rng(80)
    boxes = np.array([[
        [0.1, 0.1, 0.5, 0.6],     # inside
        [0.0, 0.0, 1.0, 1.0],     # the border
        [-0.2, 0.3, 0.4, 1.3],    # partly outside: top and right left out
        [0.6, 0.7, 0.3, 0.9],     # inverted rows: not drawn
        [1.2, 1.2, 1.5, 1.5],     # wholly outside
        [0.45, 0.45, 0.45, 0.45],  # a point
        [-0.05, -0.05, 0.3, 0.2],  # truncates to row/col 0
    ]], np.float32)
    many = np.concatenate([boxes[:, :3]] * 4, axis=1)[:, :12]
    many = many * np.linspace(0.5, 1.0, 12, dtype=np.float32)[None, :, None]
    for depth in (1, 3, 4):
        for tname, t in [("float", np.float32), ("half", np.float16)]:
            img = r.uniform(0, 0.3, size=(1, 7, 9, depth)).astype(t)

            def build(img=img):
                im, f1 = fed(img)
                b, f2 = fed(boxes)
                return raw.DrawBoundingBoxes(images=im, boxes=b), {**f1, **f2}
            case(FAMILY, f"draw_boxes_depth{depth}_{tname}", build)
    img = r.uniform(0, 0.3, size=(2, 6, 8, 3)).astype(np.float32)

    def many_colors():
        im, f1 = fed(img)
        b, f2 = fed(np.concatenate([many, many[:, ::-1]], axis=0))
        return raw.DrawBoundingBoxes(images=im, boxes=b), {**f1, **f2}
    case(FAMILY, "draw_boxes_color_cycle", many_colors,
         note="12 boxes: the 10 default colors wrap around")

    for name, colors in [
            ("colors", [[1, 0, 0], [0, 0.5, 1], [0.25, 0.75, 0.1]]),
            ("colors_more_channels", [[1, 0, 0, 1], [0, 1, 0, 0.5]]),
            ("colors_empty", np.zeros((0, 3))),
            ("colors_one", [[0.9, 0.8, 0.7]])]:
        def build(colors=colors):
            im, f1 = fed(img)
            b, f2 = fed(np.concatenate([boxes, boxes[:, ::-1]], axis=0))
            c, f3 = fed(np.asarray(colors, np.float32))
            return raw.DrawBoundingBoxesV2(images=im, boxes=b,
                                           colors=c), {**f1, **f2, **f3}
        case(FAMILY, f"draw_boxes_v2_{name}", build)

    def v2_half():
        im, f1 = fed(img[:1, :, :, :1].astype(np.float16))
        b, f2 = fed(boxes)
        c, f3 = fed(np.asarray([[0.3], [0.6]], np.float32))
        return raw.DrawBoundingBoxesV2(images=im, boxes=b, colors=c), {
            **f1, **f2, **f3}
    case(FAMILY, "draw_boxes_v2_half_gray", v2_half)

    def public():
        im, f1 = fed(img)
        b, f2 = fed(np.concatenate([boxes, boxes], axis=0))
        return tf.image.draw_bounding_boxes(
            im, b, [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]), {**f1, **f2}
    case(FAMILY, "draw_boxes_public_wrapper", public)

    def empty():
        im, f1 = fed(img)
        b, f2 = fed(np.zeros((2, 0, 4), np.float32))
        return raw.DrawBoundingBoxes(images=im, boxes=b), {**f1, **f2}
    case(FAMILY, "draw_boxes_no_boxes", empty)

    def err(name, images, bx, colors=None):
        def build():
            im, f1 = fed(np.asarray(images, np.float32), None)
            b, f2 = fed(np.asarray(bx, np.float32), None)
            if colors is None:
                return raw.DrawBoundingBoxes(images=im, boxes=b), {**f1, **f2}
            c, f3 = fed(np.asarray(colors, np.float32), None)
            return raw.DrawBoundingBoxesV2(images=im, boxes=b, colors=c), {
                **f1, **f2, **f3}
        case(FAMILY, f"draw_boxes_error_{name}", build)
    two = np.concatenate([boxes, boxes], axis=0)
    err("images_rank", img[0], two)
    err("boxes_rank", img, two[0])
    err("batch", img, boxes)
    err("depth", np.zeros((2, 4, 4, 2)), two)
    err("box_columns", img, two[..., :3])
    err("colors_rank", img, two, colors=[1.0, 0.0, 0.0])
    err("colors_channels", img, two, colors=[[1.0, 0.0]])


def glimpse_cases():
    r = rng(90)
    image = r.uniform(-1, 1, size=(3, 7, 8, 2)).astype(np.float32)
    # Offsets (y, x) per image: inside, near a corner, outside.
    offsets = {
        "normalized_centered": ([[0.0, 0.0], [0.5, -0.4], [-0.9, 0.95]],
                                True, True),
        "normalized": ([[0.2, 0.3], [0.5, 0.6], [0.9, 0.05]], True, False),
        "pixels_centered": ([[0.0, 0.0], [2.4, -1.6], [-3.5, 3.9]], False,
                            True),
        "pixels": ([[1.0, 2.0], [3.7, 4.2], [5.5, 6.9]], False, False),
        "far_outside": ([[9.0, 9.0], [-9.0, -9.0], [0.0, 20.0]], False,
                        False),
    }
    for op_name, op in [("v1", raw.ExtractGlimpse),
                        ("v2", raw.ExtractGlimpseV2)]:
        for oname, (off, normalized, centered) in offsets.items():
            for size in ([3, 4], [1, 1], [8, 10]):
                def build(op=op, off=off, normalized=normalized,
                          centered=centered, size=size):
                    im, f1 = fed(image)
                    o, f2 = fed(np.asarray(off, np.float32))
                    return op(input=im, size=size, offsets=o,
                              centered=centered, normalized=normalized,
                              uniform_noise=False, noise="zero"), {**f1, **f2}
                case(FAMILY, f"glimpse_{op_name}_{oname}_{size[0]}x{size[1]}",
                     build)

    # Windows wholly inside the image draw no noise: uniform and Gaussian
    # noise settings give TensorFlow's exact output.
    inside = np.asarray([[0.0, 0.0], [0.1, -0.2], [-0.2, 0.1]], np.float32)
    for op_name, op in [("v1", raw.ExtractGlimpse),
                        ("v2", raw.ExtractGlimpseV2)]:
        for nname, kw in [("uniform", dict(uniform_noise=True)),
                          ("gaussian", dict(uniform_noise=False, noise="")),
                          ("noise_gaussian",
                           dict(uniform_noise=False, noise="gaussian")),
                          ("noise_uniform",
                           dict(uniform_noise=True, noise="uniform"))]:
            def build(op=op, kw=kw):
                im, f1 = fed(image)
                o, f2 = fed(inside)
                return op(input=im, size=[3, 3], offsets=o, **kw), {
                    **f1, **f2}
            case(FAMILY, f"glimpse_{op_name}_inside_{nname}", build)

    # Partly outside with random noise: the output's shape and the part of
    # the window that covers the image (rows 2.., columns 3.. here) equal
    # TensorFlow's.
    for nname, kw in [("uniform", dict(uniform_noise=True)),
                      ("gaussian", dict(uniform_noise=False,
                                        noise="gaussian"))]:
        def build(kw=kw):
            im, f1 = fed(image)
            o, f2 = fed(np.asarray([[-2.0, -3.0]] * 3, np.float32))
            g = raw.ExtractGlimpseV2(input=im, size=[5, 6], offsets=o,
                                     normalized=False, centered=False, **kw)
            return [tf.shape(g), g[:, 2:, 3:, :]], {**f1, **f2}
        case(FAMILY, f"glimpse_partial_{nname}_window", build,
             note="noise outside the image is random: only the shape and "
             "the covered part are compared")

    def public():
        im, f1 = fed(image)
        o, f2 = fed(np.asarray([[0.1, 0.2], [-0.5, 0.5], [0.9, -0.9]],
                               np.float32))
        return tf.image.extract_glimpse(im, [4, 5], o, noise="zero"), {
            **f1, **f2}
    case(FAMILY, "glimpse_public_wrapper", public)

    def empty():
        im, f1 = fed(image)
        o, f2 = fed(inside)
        return raw.ExtractGlimpseV2(input=im, size=[0, 3], offsets=o,
                                    noise="zero", uniform_noise=False), {
                                        **f1, **f2}
    case(FAMILY, "glimpse_empty_window", empty)

    def err(name, img, size, off, **kw):
        def build():
            im, f1 = fed(np.asarray(img, np.float32), None)
            sz, f2 = fed(np.asarray(size, np.int32), None)
            o, f3 = fed(np.asarray(off, np.float32), None)
            return raw.ExtractGlimpseV2(input=im, size=sz, offsets=o, **kw), {
                **f1, **f2, **f3}
        case(FAMILY, f"glimpse_error_{name}", build)
    zero = dict(uniform_noise=False, noise="zero")
    err("input_rank", image[0], [2, 2], inside, **zero)
    err("size_count", image, [2, 2, 2], inside, **zero)
    err("offsets_rank", image, [2, 2], inside[0], **zero)
    err("offsets_batch", image, [2, 2], inside[:2], **zero)
    err("offsets_columns", image, [2, 2], np.zeros((3, 3)), **zero)
    err("negative_size", image, [-2, 2], inside, **zero)
    err("noise_name", image, [2, 2], inside, uniform_noise=False,
        noise="pink")


def contrast_graph(img, lo, hi, factor):
    """A build() for legacy_case: AdjustContrast (v1) of constant inputs,
    from a stand-in AdjustContrastv2 node renamed and rewired."""
    def build():
        x = tf.constant(img)
        f = tf.constant(factor, tf.float32)
        mn = tf.constant(lo, tf.float32)
        mx = tf.constant(hi, tf.float32)
        raw.AdjustContrastv2(images=tf.cast(x, tf.float32),
                             contrast_factor=f, name="legacy")

        def edit(graph_def):
            for node in graph_def.node:
                if node.name == "legacy":
                    node.op = "AdjustContrast"
                    del node.input[:]
                    node.input.extend([x.op.name, f.op.name, mn.op.name,
                                       mx.op.name])
                    node.attr.clear()
                    node.attr["T"].type = tf.as_dtype(
                        img.dtype).as_datatype_enum
        return edit
    return build


def contrast_cases():
    r = rng(95)
    for tname, t in [("uint8", np.uint8), ("int8", np.int8),
                     ("int16", np.int16), ("int32", np.int32),
                     ("float", np.float32), ("double", np.float64)]:
        if t in (np.float32, np.float64):
            img = r.uniform(0, 1, size=(2, 4, 5, 3)).astype(t)
            lo, hi, factor = 0.1, 0.9, 1.8
        else:
            info = np.iinfo(t)
            img = r.integers(max(info.min, -100), min(info.max, 200),
                             size=(2, 4, 5, 3)).astype(t)
            lo, hi, factor = -50.0, 150.0, 1.5

        b = contrast_graph(img, lo, hi, factor)
        golden_lib.legacy_case(FAMILY, f"adjust_contrast_v1_{tname}", b,
                               ["legacy:0"],
                               note="AdjustContrast (v1): clamped to "
                               "[min_value, max_value]", producer=1)

    for name, shape, lo, hi, factor in [
            ("rank3", (4, 5, 2), -1.0, 2.0, 0.5),
            ("rank5", (2, 2, 3, 4, 1), 0.2, 0.6, 3.0),
            ("min_above_max", (1, 3, 3, 3), 0.8, 0.2, 1.0),
            ("negative_factor", (1, 3, 4, 3), -5.0, 5.0, -2.0),
            ("empty", (0, 3, 4, 3), 0.0, 1.0, 2.0)]:
        img = r.uniform(0, 1, size=shape).astype(np.float32)

        b = contrast_graph(img, lo, hi, factor)
        golden_lib.legacy_case(FAMILY, f"adjust_contrast_v1_{name}", b,
                               ["legacy:0"], producer=1)


def main():
    nms_v1_v2_cases()
    nms_overlaps_cases()
    combined_cases()
    crop_grad_cases()
    draw_cases()
    glimpse_cases()
    contrast_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
