// Technician pages per device family: page id (dealer_ui/families.py Family.page) -> render function.
//
// A page is `render(container, ctx) -> {update(device)?, event(logEntry)?}` where ctx is
// {device, family, log, send(command), selfTest()}.
//
// EXTENSION POINTS, one module each as the families land:
//   cards: the shoe decoder test (deal test cards, show each decoded payload and the card it maps to)
//   dice:  the camera region and colours, with a live overlay of what the camera sees
//   balls: the ball-set check (every ball of the set read once, none missing, none twice)
// Until then those families use the generic page.
import { render as generic } from "./generic.js";
import { render as wheel } from "./wheel.js";

export const pages = { generic, wheel };
