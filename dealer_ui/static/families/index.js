// Technician pages per device family: page id (dealer_ui/families.py Family.page) -> render function.
//
// A page is `render(container, ctx) -> {update(device)?, event(logEntry)?}` where ctx is
// {device, family, log, page, tableId, role, game, send(command), selfTest(), refresh(), act(action, body)}:
// `page` is the family page's data from the server (studio/technician.py; null for pages without),
// `refresh()` fetches it again and resolves to it, `act` runs a table action (the opening check).
//
// Pages: wheel (Cammegh SS2), cards (shoe decoder test), balls (ball-set check and the machine's state),
// money_wheel (layout, calibration, segment under the pointer), roulette_camera (latest reading).
// The dice camera's page (region and colours with a live overlay) is written separately: `dice.js` in this
// folder is loaded when it exists (it exports `render` like the others); until then the generic page.
import { render as generic } from "./generic.js";
import { render as wheel } from "./wheel.js";
import { render as cards } from "./cards.js";
import { render as balls } from "./balls.js";
import { render as money_wheel } from "./money_wheel.js";
import { render as roulette_camera } from "./roulette_camera.js";

export const pages = { generic, wheel, cards, balls, money_wheel, roulette_camera };

/** The render function of a page: a built-in one, else `./<page>.js` if it exists (dice), else generic. */
export async function loadPage(name) {
  if (pages[name]) return pages[name];
  if (/^[a-z_]+$/.test(name || "")) {
    try {
      const module = await import(`./${name}.js`);
      if (typeof module.render === "function") { pages[name] = module.render; return module.render; }
    } catch (e) {
      console.info(`families/${name}.js is not available: the generic page is used`);
    }
  }
  return generic;
}
