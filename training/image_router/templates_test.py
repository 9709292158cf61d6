"""Held-out templates and vocabulary (bank B).

Written separately from ``templates_train.py`` (different sentence shapes, different
nouns, other domains: charts, UI screenshots, X-rays, satellite views, circuit boards),
so accuracy on this split measures generalisation, not memorised templates.
The labelling rules are the ones documented in ``templates_train.py``.
"""

SUBJECTS = [
    "horse", "sailboat", "lighthouse", "sunset", "forest", "salad", "bicycle", "guitar",
    "skyscraper", "waterfall", "parrot", "sofa", "motorcycle", "castle", "pizza",
    "snowman", "tractor", "owl", "desert", "harbour", "violin", "lamp", "rabbit", "train",
]
SMALL = [
    "solder joints", "capacitors", "stars", "cells", "ants", "sesame seeds", "rings",
    "pores", "spots", "eyelashes", "nails", "studs", "holes", "fibres", "specks",
    "sprinkles", "scales", "veins", "craters", "tree rings", "knots", "droplets",
]
TEXT_THINGS = [
    "road sign", "warning", "exception", "shipping label", "bill", "prescription",
    "chart axis labels", "compiler output", "boarding pass", "timetable", "recipe card",
    "traceback", "dashboard numbers", "note", "contract", "notice", "name badge",
    "nutrition label", "subtitle", "chalkboard", "error popup", "console", "letter",
]
REGIONS = [
    "upper-left quadrant", "lower-left corner", "lower right corner", "upper right",
    "left-hand side", "right-hand side", "top part", "bottom part", "centre of the image",
    "middle of the picture", "top left quadrant", "bottom-right quadrant", "top edge",
    "bottom edge", "upper portion", "lower portion", "central area", "northeast corner",
    "top-right", "bottom-left",
]
REGION_OBJECTS = [
    "button", "car", "sticker", "tree", "face", "badge", "cloud", "sign", "bottle",
    "box", "dog", "flag", "lamp post", "window",
]

TEMPLATES = {
    "full_low": [
        "what's this a picture of",
        "Quick question: is that a {subject}?",
        "Could you give me a one-line description of this {subject} photo?",
        "Which country might this {subject} be from, judging by the overall look?",
        "I just want the gist - what's going on here?",
        "Is the overall scene happy or gloomy?",
        "what colour is the {subject} overall",
        "Is this {subject} image a photo, a sketch or a 3D render?",
        "Broadly speaking, what does this show?",
        "Please classify this image: landscape, portrait or object?",
        "Write an alt text for this {subject} picture.",
        "Is there a {subject} in the photo at all?",
        "Tell me in a few words what I'm looking at.",
        "Does this look like a city or the countryside?",
        "what type of {subject} is that",
        "Would you say this is a professional photo?",
        "What's the theme of this image?",
        "Give a high-level summary of the picture with the {subject}.",
        "Is the {subject} the main focus of the shot?",
        "Is it sunny or cloudy in this {subject} picture?",
    ],
    "preserve": [
        "how many {small} can you count on it exactly",
        "I need a precise tally of the {small}.",
        "Are any of the {small} missing or broken? Check each one carefully.",
        "Inspect every single one of the {small} at full resolution.",
        "Do the {small} show any tiny irregularities?",
        "Count all {small}, do not estimate.",
        "Examine the microscopic structure of the {small}.",
        "What's the exact number of {small} in this close-up?",
        "Please verify the fine detail: are the {small} evenly spaced?",
        "Look at the faint {small} and tell me if any differ slightly.",
        "number of {small}? be exact",
        "Is there a hairline defect among the {small}?",
        "Check the small print-sized {small} for damage, every one.",
        "Give me the precise measurement between adjacent {small}.",
        "Detect subtle anomalies in the {small} texture.",
        "Can you spot the one odd item among the tiny {small}?",
        "Are the {small} on the {subject} all identical down to the last detail?",
        "How many {small} does the {subject} have? I need the exact figure.",
        "Scrutinise the {small} closely for minute cracks.",
        "Tally up the {small} one by one.",
    ],
    "transcode": [
        "what does the {text} say",
        "Please transcribe the {text}.",
        "Can you tell me the exact text of the {text}?",
        "Copy out the {text} verbatim.",
        "I can't make out the {text}, can you read it?",
        "Which message is shown in the {text}?",
        "Get me the text content of this {text}.",
        "Read me the {text} line by line.",
        "What is the wording on the {text}?",
        "Turn the {text} into text I can paste.",
        "What number is written on the {text}?",
        "Read the {text} aloud, word for word.",
        "What does this screenshot of the {text} say exactly?",
        "Digitise the {text} for me.",
        "read the {text} please",
        "What's printed on the {text}?",
        "Which function name appears in the {text}?",
        "What amount is due according to the {text}?",
        "Extract every word from the {text}.",
        "Type up the {text} so I can search it.",
    ],
    "crop": [
        "what is in the {region}",
        "Can you tell me what the {obj} in the {region} is?",
        "Only look at the {region}; describe it.",
        "There's something in the {region} - what is it?",
        "Describe the {obj} you can see in the {region}.",
        "Focus on the {region} of the photo please.",
        "What's that {obj} in the {region}?",
        "In the {region} there seems to be a {obj}. What is it?",
        "Tell me what occupies the {region}.",
        "Is the {region} empty or is there a {obj}?",
        "What colour is the thing in the {region}?",
        "Please describe the {region} only.",
        "Check out the {obj} at the {region} - what kind is it?",
        "Explain what's going on in the {region}.",
        "what sits at the {region}",
        "Is there a {obj} visible in the {region}?",
        "Describe the contents of the {region}.",
        "Zoom to the {region}: anything notable?",
        "Which {obj} appears in the {region}?",
        "What do you notice in the {region} of the frame?",
    ],
}

SLOTS = {"subject": SUBJECTS, "small": SMALL, "text": TEXT_THINGS, "region": REGIONS, "obj": REGION_OBJECTS}
