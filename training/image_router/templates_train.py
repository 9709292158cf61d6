"""Training templates and vocabulary (bank A).

Written independently of ``templates_test.py``: no template and as few slot values as
possible are shared, so the held-out split measures how well the router generalises to
phrasing it never saw.

Labelling rules (the same for both banks):
- full_low: the gist of the whole image is enough (what/which kind, describe, mood,
  dominant colour, style, scene, rough category).
- preserve: the answer depends on fine detail at full resolution (counting small
  things, tiny features, exact measurements, subtle differences, defects, textures).
- transcode: the answer is the text in the image (read, transcribe, extract, the error
  message, the numbers in a table, code in a screenshot).
- crop: the question names a region of the image (corners, halves, centre, edges).
"""

SUBJECTS = [
    "animal", "dog", "cat", "car", "building", "landscape", "dish", "plant", "painting",
    "room", "bird", "outfit", "product", "bridge", "flower", "truck", "kitchen", "beach",
    "mountain", "street", "garden", "sculpture", "boat", "chair", "cake",
]
SMALL = [
    "whiskers", "rivets", "stitches", "seeds", "screws", "bolts", "pixels", "leaves",
    "freckles", "scratches", "teeth", "feathers", "windows", "bricks", "tiles", "dots",
    "petals", "cracks", "hairs", "bubbles", "grains", "threads", "pins", "beads",
]
TEXT_THINGS = [
    "sign", "error", "error message", "label", "receipt", "menu", "license plate",
    "caption", "street sign", "stack trace", "invoice", "form", "banner", "headline",
    "terminal output", "warning dialog", "spreadsheet", "log output", "poster", "ticket",
    "price tag", "whiteboard", "slide", "book page", "certificate",
]
REGIONS = [
    "top-left corner", "top right corner", "bottom-left corner", "bottom right corner",
    "left half", "right half", "top half", "bottom half", "center", "middle",
    "upper left", "lower right", "upper half", "lower half", "left side", "right side",
    "top left", "bottom left", "centre", "upper right corner",
]
# Non-photo visuals whose gist is enough (trend of a chart, purpose of a diagram).
VISUALS = [
    "chart", "graph", "diagram", "map", "screenshot", "dashboard", "infographic", "flowchart",
    "plot", "UI mockup", "bar chart", "line graph", "floor plan", "wireframe",
]
REGION_OBJECTS = [
    "object", "thing", "icon", "item", "shape", "person", "figure", "element", "detail",
    "logo", "symbol", "animal", "marking",
]

TEMPLATES = {
    "full_low": [
        "What {subject} is this?",
        "What animal is this?",
        "Describe this image.",
        "Describe the {subject} in a sentence.",
        "What kind of {subject} is shown here?",
        "Is this a photo of a {subject}?",
        "What is the overall mood of this picture?",
        "What is the dominant colour of the {subject}?",
        "Give me a short caption for this photo.",
        "Which breed of {subject} does this look like?",
        "What style is this {subject}?",
        "Is it day or night in this picture?",
        "What is happening in this scene?",
        "Roughly what is this image about?",
        "Summarize what you see.",
        "Is this indoors or outdoors?",
        "What season does this {subject} photo look like?",
        "Can you tell me what this is?",
        "What category would you file this {subject} image under?",
        "Does this picture show a {subject} or something else?",
        "What's the general vibe of this {subject}?",
        "Identify the main subject of the photo.",
        "Is the {subject} big or small?",
        "What type of place is this?",
        "Tell me briefly what the picture shows.",
        "Is this a drawing or a photograph?",
        "What colour is the {subject} mostly?",
        "Name the thing in this picture.",
        "What's the weather like in this shot?",
        "Guess where this {subject} photo was taken.",
        "What does this {visual} show overall?",
        "What's the general trend in the {visual}?",
        "What kind of {visual} is this?",
        "Give me the big picture of this {visual}.",
        "Is the {visual} going up or down overall?",
        "What is the {visual} mainly about?",
        "Explain the overall layout of the {visual}.",
        "Which idea does this {visual} illustrate?",
    ],
    "preserve": [
        "Count the {small}.",
        "How many {small} are there exactly?",
        "Count the {small} on the {subject}.",
        "Can you count every one of the {small}?",
        "Are there any tiny {small} visible on the {subject}?",
        "Measure the exact width of the {small} in pixels.",
        "Look closely at the {small}: are any of them damaged?",
        "Find the smallest defect on the {subject}.",
        "Compare the fine texture of the two {small}.",
        "Inspect the {subject} for hairline {small}.",
        "What is the exact number of {small} visible?",
        "Zoom in on the {small} and describe their pattern precisely.",
        "Are the {small} perfectly aligned?",
        "Check pixel by pixel whether the edges of the {subject} are sharp.",
        "Spot the subtle differences between these two {subject} images.",
        "Is there a faint {small} pattern visible in the fine detail?",
        "How many individual {small} can you see on the {subject}?",
        "Examine the fine grain of the {subject} surface.",
        "Are there small {small} hidden in the detail?",
        "Tell me the precise count of {small}.",
        "Look for microscopic {small} on the {subject}.",
        "Estimate the exact spacing between the {small}.",
        "Check the tiny {small} for irregularities.",
        "Is each of the {small} the same exact shade?",
        "Carefully count how many {small} the {subject} has.",
        "Detect any small artefacts in the {subject} image.",
        "Evaluate the sharpness of the thin {small}.",
        "Does the {subject} have any minute {small} at full resolution?",
        "I need the exact count of {small}, please be precise.",
        "Find every tiny {small} and list their positions.",
    ],
    "transcode": [
        "Read the {text}.",
        "What does the {text} say?",
        "Transcribe the {text} word for word.",
        "Read the error.",
        "What is the error message in this screenshot?",
        "Extract the text from the {text}.",
        "Copy the text on the {text} into your answer.",
        "What is written on the {text}?",
        "Can you read the {text} for me?",
        "Type out everything on the {text}.",
        "What's the total on the {text}?",
        "What does the {text} read?",
        "Give me the exact wording of the {text}.",
        "OCR this {text}.",
        "Pull the numbers out of the {text}.",
        "What is the title printed on the {text}?",
        "Read the stack trace and tell me which line failed.",
        "Convert the {text} into plain text.",
        "What text appears in this image?",
        "What name is printed on the {text}?",
        "Quote the {text} exactly.",
        "What does the code in this screenshot say?",
        "List the items written on the {text}.",
        "Which date is printed on the {text}?",
        "Read out the phone number on the {text}.",
        "Extract the table values from the {text}.",
        "What exception does the {text} show?",
        "Transcribe the handwriting on the {text}.",
        "What words are on the {text}?",
        "Read the fine print on the {text}.",
    ],
    "crop": [
        "What's in the {region}?",
        "What's in the top-left corner?",
        "What is the {obj} in the {region}?",
        "Describe the {region} of the image.",
        "Focus on the {region}: what do you see?",
        "What colour is the {obj} in the {region}?",
        "Look only at the {region} of the picture.",
        "Is there a {obj} in the {region}?",
        "What is shown in the {region} of this photo?",
        "Tell me about the {obj} located in the {region}.",
        "Zoom into the {region} and describe it.",
        "What appears in the {region} of the screenshot?",
        "Check the {region}: is anything there?",
        "Identify the {obj} at the {region}.",
        "In the {region}, what is that {obj}?",
        "What's happening in the {region} of the frame?",
        "Describe only what is in the {region}.",
        "Which {obj} sits in the {region}?",
        "Can you see something in the {region}?",
        "What does the {region} contain?",
        "Crop to the {region} and tell me what's there.",
        "Please examine the {region} area.",
        "What is that {obj} over in the {region}?",
        "Explain the {obj} visible in the {region} of the image.",
        "Anything interesting in the {region}?",
        "What kind of {obj} is in the {region}?",
        "Just the {region}: what's there?",
        "Look at the {region} for me.",
        "What is at the {region} of the picture?",
        "Is the {obj} in the {region} red or blue?",
    ],
}

SLOTS = {"subject": SUBJECTS, "small": SMALL, "text": TEXT_THINGS, "region": REGIONS, "obj": REGION_OBJECTS,
         "visual": VISUALS}
