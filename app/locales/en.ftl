# Anteroom's buyer pages, in English: the source every other language follows.
# Ids are grouped by page; a `$n` is a whole number, written and made plural the
# language's way. Operator pages and the JSON API's messages are not here: they stay English.

## Numbers of time and money (app/src/words.rs)

duration-seconds = { $n ->
    [one] a second
   *[other] { $n } seconds
}
duration-minutes = { $n ->
    [one] a minute
   *[other] { $n } minutes
}
duration-hours = { $n ->
    [one] 1 hour
   *[other] { $n } hours
}
# "1 hour 5 minutes": $hours is duration-hours.
duration-hours-minutes = { $hours } { $m } minutes
# "about 3 minutes": $duration is one of the durations above.
wait-about = about { $duration }
# "about 40 seconds to 2 minutes": two durations.
wait-range = about { $low } to { $high }
# Both ends in seconds (more than one): "about 20 to 40 seconds".
wait-range-seconds = about { $low } to { $high } seconds
# Both ends in minutes (more than one): "about 3 to 4 minutes".
wait-range-minutes = about { $low } to { $high } minutes
wait-under-a-minute = less than a minute
countdown-days = { $days ->
    [one] 1 day
   *[other] { $days } days
} { $hours } h

weekday = { $n ->
    [1] Monday
    [2] Tuesday
    [3] Wednesday
    [4] Thursday
    [5] Friday
    [6] Saturday
   *[7] Sunday
}
month = { $n ->
    [1] January
    [2] February
    [3] March
    [4] April
    [5] May
    [6] June
    [7] July
    [8] August
    [9] September
    [10] October
    [11] November
   *[12] December
}
# "Tuesday 1 December, 19:00": $weekday and $month are the names above, $time is 19:00.
day-and-time = { $weekday } { $day } { $month }, { $time }
day-and-time-with-year = { $weekday } { $day } { $month } { $year }, { $time }
# "19:00 Berlin time"; $zone is zone-time below, or UTC.
time-in-zone = { $time } { $zone }
# A zone's name by its city: "Berlin time".
zone-time = { $city } time

## The outlook

outlook-likely = Seats are likely to be left when your turn comes.
outlook-uncertain = Seats may or may not be left when your turn comes: it depends on held seats coming back.
outlook-unlikely = Seats are unlikely to be left when your turn comes, unless many held seats come back.

## Moving a place to another device

needs-device = This sale ties each place in line to the device that took it, which needs JavaScript and a browser that can make a key (WebCrypto); this browser cannot, so it cannot take a place here. Open this page in an up-to-date browser with JavaScript on.
move-explained = On your other device, scan this code, or open this sale there and type the code under "{ moving-have-code }". Your place moves there with its position, once; this page then has no place any more.
claim-refused = That code is used, expired or unknown, so no place moved here. You keep this page's own place in line.
claimed = Your place moved here from your other device, with its position.
moving-place-waiting = Your other device's place is #{ $n } in line.
moving-place-in-line = Your other device's place is in line.
moving-place-admitted = Your other device's place has been let in.
moving-place-in-draw = Your other device's place is in the draw.
own-place-given-up = This device is #{ $n } in line; moving that place here gives this one up.
own-ticket-given-up = This device is in the draw; moving that place here gives its ticket up.
# "Valid until 19:14 Berlin time, once."
move-valid-until = Valid until { $time }, once.
# $time: "19:04", $zone: "Berlin time".
place-moved = Your place moved to another device at { $time } ({ $zone }). Continue there; this page has no place any more.
seats-coming = It is your turn: your seat map is on its way.
unreadable = This page could not read what our server sent. Reload it to try again.

## What a form posted without JavaScript comes back to ($wait: "about 12 seconds")

note-released = Released. The seats are free for others again.
note-seat-taken = Someone just took a seat you chose, so nothing was held. The map now shows what is left; choose again.
note-not-together = There are not that many seats left together in that section, so nothing was held. Try fewer seats or another section.
note-no-seats = You had not chosen any seat. Tick the seats you want, or let us find the best ones.
note-too-many-seats = That is more seats than one buyer may hold at this sale, so nothing was held. Choose fewer.
note-bad-form = We could not read that form, so nothing was changed. Here is the page again; please try once more.
note-admission-ended = Your time to choose seats ran out, so you have joined the line again.
note-not-your-turn = It is not your turn to choose seats yet. You keep your place in line; this page lets you in when it is your turn.
note-claim-conflict = That place cannot move to this browser: the code is this browser's own, or this browser is admitted already, or its place moved once before. Nothing changed.
note-admission-missing = Your browser sent that form without your admission, so nothing was held. Here is the seat map again; please try once more.
note-no-session = Your browser sent that form without our session cookie, so we could not tell it was you and changed nothing. Allow cookies for this site and try again.
note-stale-form = That form came from an older visit to this page, so nothing was changed. Here is the page again, up to date; please try once more.
note-rate-limited = You tried that many times in the last minute, so nothing was changed. Try again in { $wait }.
note-busy = Anteroom is at capacity this instant, so nothing was changed. Try again in { $wait }.
note-unavailable = Part of Anteroom is not answering just now, so nothing was changed. Try again in { $wait }.
note-declined = The payment was declined. Your seats are still held; you can try again.
note-pay-not-done = Your payment has not gone through yet. Your seats are still held and are never charged twice; try again in { $wait }.
note-hold-ended = Your hold had ended before it was paid, so nothing was charged and the seats went back on sale. Choose again if you like.
note-already-paid = Those seats are paid for, so they cannot be released.
note-no-hold = We found no such hold of yours, so nothing was changed. Here is where you are now.
note-not-open = The sale has not opened yet, so nothing was changed. This page counts down to it.
note-failed = Something went wrong on our side, so that did not go through. Please try again.

## What went wrong, by the API's error code

error-network = We could not reach Anteroom. Check your connection; we will keep trying.
error-rate-limited = There were too many tries from your network in the last minute, so nothing was changed. Please wait a moment and try again.
error-unavailable = Part of Anteroom is not answering just now, so nothing was changed. Please try again in a few seconds.
error-seat-unavailable = Someone just took a seat you chose, so nothing was held. Choose again.
error-not-admitted = It is not your turn to choose seats, or your time to choose ran out. You keep your place in line.
error-not-in-queue = This page has no place in line any more. Reload it to take one.
error-not-found = We could not find that. Reload the page to see where you are.
error-not-open = The sale has not opened yet. This page counts down to it.
error-conflict = That clashed with a change made a moment ago, so nothing was changed. Reload the page and try again.
error-unauthorized = Your browser did not send our session cookie. Allow cookies for this site and reload the page.
error-forbidden = That is not allowed for your account at this sale.
error-bad-request = We could not read that request, so nothing was changed. Please try again.
error-internal = Something went wrong on our side. Please try again.


## The event's page around its stages (app/src/onsale/mod.rs)

page-finding-place = Finding your place in line…
page-sign-in-to-join = Sign in to join
page-not-for-your-account = This sale is not open to your account
page-sign-in = Sign in
page-all-events = See all events
# The sign-in's own pages, when it does not go through (each with a way back).
signin-not-set-up-title = Sign-in is not set up here
signin-not-set-up = This sale's site has no sign-in configured, so you cannot sign in here.
signin-not-matched-title = This sign-in was not started here
signin-not-matched = The sign-in could not be matched to one this browser started (or it took longer than 10 minutes). Start it again.
signin-unavailable-title = Sign-in is unavailable right now
signin-too-many-title = Too many sign-ins from your network
signin-failed-title = The sign-in did not go through
signin-unavailable = The sign-in service is not answering just now. Try again in a moment.
signin-failed = The sign-in could not be completed, so you are not signed in. Try again.
signin-back = Back
# The page an instance at capacity answers instead of a waiting room (it comes back by itself).
busy-title = One moment
busy-place-kept = Anteroom is at capacity this instant; any place you have in line is kept.
page-could-not-open = We could not open this sale
page-try-again = Try again
page-tries-again-in = This page tries again by itself in { $n } seconds.

## What the page's live region says to a screen reader when the stage changes

say-not-open = The sale has not opened yet.
# $ticket: the buyer's ticket in the draw, a code.
say-pre-queue = You are in the pre-queue with ticket { $ticket }. Your place comes with the draw.
say-paused = You are in line. The sale is paused.
# $wait: "about 5 minutes", "less than a minute".
say-waiting = You are in line, { $wait } to go.
say-sold-out = Sold out: every seat has been sold.
say-moved = Your place moved to another device. Continue there.
say-choosing = It is your turn: choose your seats.
say-holding = Your seats are held. Pay before the time runs out.
say-confirmed = Done. Your seats are bought.

## Around every page, and the list of events (app/src/pages.rs)

# The name of the language switcher, for screen readers.
languages = Language
not-found = Not found
not-found-here = There is no page here.
not-found-events = See the events on sale.
events-title = Events · Anteroom
events-heading = Events on sale
events-show-details = Show room details
events-hide-details = Hide room details
events-loading = Loading events…
events-none = Nothing is on sale yet.
events-no-waiting = On sale: no waiting
events-paused = Waiting room paused
events-open = Waiting room open
# $opens: "Tuesday 1 December 2026, 19:00 Berlin time".
events-opens = Sale opens { $opens }
events-opens-with-pre-queue = Sale opens { $opens }; pre-queue from { $prequeue } (everyone in it has the same chance)
events-admitted-per-second = Admitted per second
events-hold-lasts = Hold lasts
events-minutes = { $n } min
events-seats-per-buyer = Seats per buyer

## Before the line: the countdowns and the pre-queue (app/src/onsale/opening.rs)

opening-not-yet = The sale has not opened yet
# $time: when the sale opens, e.g. "Tuesday 1 December, 19:00 (Berlin time)".
opening-sale-at = The sale opens at { $time }
# $time: when the pre-queue opens; $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-prequeue-at = The pre-queue opens at { $time }, in { $countdown }.
# $prequeue: when the pre-queue opens; $sale: when the sale opens (and the draw is made).
opening-prequeue-explained = Everyone who joins the pre-queue between { $prequeue } and { $sale } has the same chance: at { $sale } a draw puts them all in line in a random order, ahead of everyone who comes later. Being first makes no difference, so there is no need to rush: come any time before { $sale }.
# $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-sale-in = It opens in { $countdown }. From then on it is first come, first served.
opening-keep-open = Keep this page open: it joins for you when the time comes.
opening-in-prequeue = You are in the pre-queue
# $ticket: the buyer's ticket in the draw, a random code.
opening-your-ticket = Your ticket { $ticket }
# $time: when the sale opens; $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-draw-at = The draw is at { $time }, in { $countdown }.
opening-draw-now = The draw is being made: your place comes in a moment.
# $time: when the sale opens (and the draw is made).
opening-draw-explained = Everyone who joins before { $time } has the same chance: joining early or at the last second makes no difference. At { $time } a draw puts every ticket in a random order, and that is the order of the line, ahead of everyone who comes after { $time }.
opening-ticket-kept = Keep this page open, or come back before the draw: your ticket stays yours, in every tab. It is random and says nothing about you; after the draw anyone can check where each ticket was placed.

## The waiting room (app/src/onsale/waiting.rs)

waiting-in-room = You are in the waiting room
# $place: waiting-position or waiting-position-about, shown in bold.
waiting-place = You are { $place } in line
# The buyer's exact place in line: "#14,812".
waiting-position = #{ $n }
# The buyer's place in line when it is an estimate: "about #14,812".
waiting-position-about = about #{ $n }
waiting-paused = The sale is paused for a moment. You keep your place; no one can pass you.
# $wait: "about 3 to 4 minutes", shown in bold.
waiting-turn-in = Your turn comes in { $wait }.
waiting-progress = Progress since you joined
# How often the page refreshes itself, in seconds.
waiting-refresh-every = { $n ->
    [60] every minute
    [one] every second
   *[other] every { $n } seconds
}
# $every: waiting-refresh-every ("every 3 seconds").
waiting-keep-open = Keep this page open: it moves by itself ({ $every }), and it lets you in when it is your turn. Refreshing or opening more tabs does not change your place.
waiting-refreshes = This page refreshes itself, less often while your turn is far.
# $ticket: the buyer's ticket in the draw (a code); $place: the place the draw gave it ("14,812").
waiting-drawn-place = Your place comes from the draw: ticket { $ticket } was drawn at place { $place }.
# $address: the web address where the draw is published (a link); $command: a command line to check it.
waiting-check-draw = Check it yourself: the draw is published at { $address } (the secret committed to before the pre-queue opened, the beacon, the seed, and every ticket in order). Anyone can recompute it, or run { $command }.
# Stands for the sale's web address in a command line the buyer may run.
waiting-this-site = <this site>
waiting-recovered = The waiting room recovered from a failure of its store a moment ago. Your place is kept in the order you arrived; your position may have gone back while admissions lost in the failure are made again.
waiting-turn-passed = Your turn passed without a choice, so you are back in line.

## While the browser joins the line (app/src/onsale/arriving.rs)

arriving-getting-place = Getting your place…
arriving-proof-work = This sale asks each browser for a few seconds of work before it joins the line, so that nobody can take places in bulk. Your browser is doing it now; keep this page open and it moves on by itself.
arriving-proof-needs-script = That work needs JavaScript: turn it on for this site and reload the page.
arriving-joining = One moment: your browser is joining the line.
arriving-reloads = This page reloads itself in a second with your place.

## Pages without JavaScript (app/src/onsale/noscript.rs)

noscript-countdown-refresh = This page refreshes itself; its countdown is right each time it does.

## The buyer's turn: the seat map (app/src/onsale/seats.rs)

seats-your-turn = You're in: it is your turn.
seats-title = Choose your seats
# $n: how many seats one buyer may hold at this sale.
seats-intro = { $n ->
    [one] Up to 1 seat. Open a section and tick seats to choose them, or let us find the best ones together.
   *[other] Up to { $n } seats. Open a section and tick seats to choose them, or let us find the best ones together.
}
# The label of the list of the hall's sections (read by screen readers).
seats-sections = Sections
# The map's legend: what a seat's colour means.
seats-available = Available
seats-chosen = Your choice
seats-held = Held
seats-sold = Sold
# The buyer picks how large the seats are drawn.
seats-size = Seat size
seats-size-small = Small
seats-size-medium = Medium
seats-size-large = Large
# Marks where the stage is, above the seats.
seats-stage = Stage
# A section's tile in the overview: its seats still free.
seats-left = { $n ->
    [0] None free now
    [one] 1 seat left
   *[other] { $n } seats left
}
# A section's prices, cheapest to dearest: "25.00 EUR to 45.00 EUR".
seats-price-range = { $low } to { $high }
# A seat's name: "Stalls row 4 seat 12" ($section and $row are the venue's own names).
seats-seat = { $section } row { $row } seat { $seat }
# A seat the map no longer shows, by its code.
seats-seat-id = seat { $id }
# Between seats' names in a list: "Stalls row 4 seat 12, Stalls row 4 seat 13".
seats-list-separator = { ", " }
# A row of seats, as screen readers name it: "Stalls row 4".
seats-row = { $section } row { $row }
# A seat's checkbox, as screen readers read it: "Stalls row 4 seat 12, 45.00 EUR, available".
seats-seat-described = { $section } row { $row } seat { $seat }, { $price }, { $status ->
    [available] available
    [held] held
   *[sold] sold
}
# $n: how many seats are ticked.
seats-hold-button = { $n ->
    [0] Hold the seats I ticked
    [one] Hold 1 seat
   *[other] Hold { $n } seats
}
seats-best = Or: best available
seats-best-section = Section
# How many seats to find together.
seats-best-quantity = Seats
seats-find = Find me seats
# $seats: the seats' names, as a list ("Stalls row 4 seat 12, Stalls row 4 seat 13").
seats-taken = Someone just took { $seats }. The map now shows what is left; choose again.
seats-not-together = There are not that many seats left together in that section. Try fewer seats or another section.
# $n: how many seats one buyer may hold at this sale.
seats-limit-reached = { $n ->
    [one] You may hold up to 1 seat; untick one to choose another.
   *[other] You may hold up to { $n } seats; untick one to choose another.
}

## The buyer's turn: seats held (app/src/onsale/held.rs)

held-title = Your seats are held
# $time is a countdown, "4:59", shown in bold.
held-for = Held for { $time } more
# $amount: "90.00 EUR".
held-pay = Pay { $amount }
held-release = Release seats
held-ended = Your hold ended and the seats went back on sale. Choose again if you like.
held-one-minute = One minute left: pay now or the seats go back on sale.
# A held seat: "Stalls · row 4 · seat 12" ($section and $row are the venue's own names).
held-seat = { $section } · row { $row } · seat { $seat }
held-total = Total

## The end: sold out, or the order confirmed (app/src/onsale/done.rs)

done-sold-out-title = Sold out
done-sold-out = Every seat of this event has been sold, so the waiting room has closed.
done-title = You are going!
# $order is the order's number, shown in bold.
done-order-number = Order number { $order }
done-keep = Keep the order number; your tickets are on their way.
done-back = Back to the events

## Moving a place to another device (app/src/onsale/moving.rs)

# A page without JavaScript opened with a move code: the form that claims the place.
moving-claim-coming = Your place in line is moving here from your other device.
# The button that claims a place moved from another device (the no-JavaScript form and the
# "Have a code from another device?" form).
moving-move-mine-here = Move my place here
# Read by screen readers: the box that asks whether to take a place moving here over this page's own.
moving-choice-label = A place moving here
moving-choice-move = Move that place here
moving-choice-keep = Keep this device's place
# The button that asks for a one-time code moving this page's place to another device.
moving-continue-elsewhere = Continue on another device
moving-code-heading = Your code for the other device
# Also quoted inside move-explained.
moving-have-code = Have a code from another device?
# The label of the field where the buyer types the code.
moving-code-label = The code your other device shows
