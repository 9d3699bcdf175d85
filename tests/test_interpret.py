"""interpret_prompt refuses, with a reason, every prompt that is not one of the benchmark's or
whose words do not fit the scene; it never guesses."""
import pytest

from objsub_fast.task.interpret import interpret_prompt

SUFFIX = " Do not do anything to other objects."


def obj(i, color, shape, x, y, size=30):
    return {"id": i, "color": color, "shape": shape, "x": x, "y": y, "size": size}


#: Two red cubes (same size), a blue sphere, a green cone: in the upper-left, both at x = 40.
SCENE = [obj(0, "red", "cube", 40, 40), obj(1, "red", "cube", 40, 200),
         obj(2, "blue", "sphere", 128, 128), obj(3, "green", "cone", 200, 60)]


def test_a_prompt_that_fits_is_read():
    assert interpret_prompt("Remove all red objects from the scene." + SUFFIX, SCENE) == [0, 1]


@pytest.mark.parametrize("prompt,scene,reason", [
    ("Remove all red objects from the scene.", SCENE, "does not end with"),
    ("Remove all red objects." + SUFFIX, SCENE, "not a prompt of this benchmark"),
    ("Remove all plaid objects from the scene." + SUFFIX, SCENE, "cannot read the list"),
    ("Remove all pink objects from the scene." + SUFFIX, SCENE, "no object is pink"),
    ("Paint the red cube blue." + SUFFIX, SCENE, "not a prompt of this benchmark"),
    ("Remove the red cube and the blue sphere from the scene." + SUFFIX, SCENE,
     "'the red cube' does not fit the scene: 2 such objects"),
    ("Remove all blue spheres and the green cone from the scene." + SUFFIX, SCENE,
     "'all blue spheres' does not fit the scene: 1 such objects"),
    ("Remove the blue sphere and the blue sphere from the scene." + SUFFIX, SCENE,
     "list names blue sphere twice"),
    ("Remove the blue sphere from the scene." + SUFFIX, SCENE, "cannot read the list"),
    ("Remove the largest object." + SUFFIX, SCENE, "but 4 objects have that size"),
    ("Remove the largest objects." + SUFFIX, SCENE, "is not a prompt form"),
    ("Remove the leftmost object." + SUFFIX, SCENE, "'leftmost' order is tied at position 1"),
    ("Remove the 4 topmost objects." + SUFFIX, SCENE, "asks for 4 of 4 objects"),
    ("Remove the 2 objects on the far left side of the screen." + SUFFIX, SCENE[2:],
     "says 2 on the far left side, scene has 0"),
    ("Remove the object that looks different from the others." + SUFFIX, SCENE,
     "objects look different from the others, expected one"),
])
def test_prompts_that_do_not_fit_are_refused(prompt, scene, reason):
    with pytest.raises(ValueError, match=reason):
        interpret_prompt(prompt, scene)
