use nqueens::internals::join::{self, Quadrants, Tables};
use std::io::Write;
fn main() {
    let mut a = std::env::args().skip(1);
    let n: usize = a.next().unwrap().parse().unwrap();
    let north: u32 = a.next().unwrap().parse().unwrap();
    let k: usize = a.next().map_or(0, |s| s.parse().unwrap());
    let out = a.next();
    let q = Quadrants::bounded(n, 0);
    let geo = join::Geometry::new(n);
    let units = join::units(n);
    let ids: Vec<usize> = (0..units.len())
        .filter(|&i| join::stratum(n, &units[i].0) & 0xff == north)
        .collect();
    let id = ids[(k * 7919 + 13) % ids.len()];
    let u = units[id].0;
    let t0 = std::time::Instant::now();
    let (e, w) = join::unit_sides(&q, &u);
    let made = t0.elapsed().as_secs_f64();
    println!(
        "n={n} unit {id} rows {:b} east {} west {} made {made:.2}s bits {}",
        u.east_rows,
        e.len(),
        w.len(),
        geo.pattern_bits()
    );
    if out.as_deref() == Some("-") {
        return;
    }
    if let Some(path) = out {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        f.write_all(&(e.len() as u64).to_le_bytes()).unwrap();
        f.write_all(&(w.len() as u64).to_le_bytes()).unwrap();
        for x in e.iter().chain(&w) {
            f.write_all(&x.to_le_bytes()).unwrap();
        }
        return;
    }
    let mut t = Tables::default();
    let t0 = std::time::Instant::now();
    let c = join::count_fitting(&e, &w, geo.pattern_bits(), &mut t);
    println!("count {c} in {:.2}s", t0.elapsed().as_secs_f64());
}
